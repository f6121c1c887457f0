/**
 * Checkpoints, diff and rewind end to end on the real lab: FRR routers r1, r2
 * and VPCS PC1 behind a fake v3 controller, the built CLI, and the fake LLM over
 * HTTP as the model. Request 1 is the agent's: it configures OSPF on both
 * routers and gives PC1 an address, and the dispatch checkpoints the three
 * devices before the change. Then `diff`, `rewind --dry-run`, a rewind killed
 * with SIGKILL half way (r2's console frozen by a forwarder at the moment the
 * restore enters configuration mode), the `rewind` that finishes it, and the
 * TUI's /rewind (ink-testing-library, the real rewind behind it) undoing that
 * rewind with the approval box previewing each device's diff.
 * Needs root + frr + vpcs (fails, never skips, when missing).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { startLab, type Lab } from '../lab/lab.js';
import { ospfAreaZero } from '../lab/ospf.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { frrLabNode, telnetNode } from '../fakes/gns3/nodes.js';
import { startFakeLlm, type FakeLlm } from '../fakes/llm/server.js';
import { startHoldProxy, type HoldProxy } from '../helpers/hold-proxy.js';
import { cliEnv, llmFlags, runCli } from '../e2e/oneshot-cli.js';
import { parseJsonResult } from '../e2e/oneshot-schema.js';
import { SessionStore } from '../../src/sessions/store.js';
import { CheckpointStore } from '../../src/checkpoints/store.js';
import { captureDevices } from '../../src/checkpoints/capture.js';
import type { ToolContext } from '../../src/tools/types.js';
import { closePool, ctxFor, settingsWith } from '../devices/helpers.js';
import { cleanup } from 'ink-testing-library';
import { mount } from '../ui/harness.js';
import { testSettings } from '../ui/helpers/fake-services.js';
import { until as untilFrame } from '../ui/helpers/scripted-session.js';
import { stripAnsi } from '../../src/ui/style.js';
import { rewindFromTui, sessionRequests, type TuiRewindOptions } from '../../src/undo/tui-rewind.js';
import type { Settings } from '../../src/config/schema.js';

const ROUTERS = ['r1', 'r2'];
let lab: Lab;
let gns3: FakeGns3;
let llm: FakeLlm;
let r2Console: HoldProxy;
let ctx: ToolContext;
/** the session the agent's request ran in */
let S: string;
// what is tested is not the verification's settle: OSPF's flooding wait (verify_quiet, see changeset-checks-lab) is off
const env = cliEnv({ GNS3_USER: 'admin', GNS3_PASSWORD: 'admin-pass', GNS3_COPILOT_VERIFY_QUIET: '0' });
env.env.GNS3_COPILOT_DATA_DIR = `${env.home}/data`;
// a loaded machine can take more than the default 5 s to bring a console prompt back
env.env.GNS3_COPILOT_CONNECT_TIMEOUT_MS = '15000';
/** each router's running configuration before the agent touched it (read out of band) */
const before = new Map<string, string>();

const cli = (args: string[], onSpawn?: (c: ChildProcess) => void) =>
  runCli([...args, '--server', gns3.url, '--project', 'rw'], env.env, { timeoutMs: 120_000, ...(onSpawn ? { onSpawn } : {}) });
const neighboursFull = (r: string) => /Full/.test(lab.vtysh(r, 'show ip ospf neighbor'));
const running = (r: string) => lab.vtysh(r, 'show running-config').replace(/\s+$/, '');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

async function checkpoints<T>(read: (cp: CheckpointStore) => T): Promise<T> {
  const store = await SessionStore.open(`${env.home}/data`);
  try {
    return read(new CheckpointStore(store.db));
  } finally {
    store.close();
  }
}

beforeAll(async () => {
  lab = await startLab({ routers: ROUTERS, links: [['r1', 'r2']], pcs: [{ name: 'PC1', router: 'r1' }] });
  gns3 = await startFakeGns3({ api: 'v3', users: { admin: 'admin-pass' } });
  gns3.addProject({ name: 'rw' });
  r2Console = await startHoldProxy(lab.device('r2').consolePort);
  gns3.addNode(frrLabNode(lab.device('r1')));
  gns3.addNode(frrLabNode({ ...lab.device('r2'), consolePort: r2Console.port }));
  gns3.addNode(telnetNode('PC1', lab.device('PC1').consolePort, { node_type: 'vpcs' }));
  ctx = ctxFor(settingsWith(), lab.topology());
  for (const r of ROUTERS) before.set(r, running(r));

  // Request 1: the agent configures OSPF on both routers and an address on PC1, in one response.
  llm = await startFakeLlm(
    [
      {
        tool_calls: [
          {
            id: 'ospf',
            name: 'execute_multiple_device_config_commands',
            args: {
              device_configs: ROUTERS.map((r) => ({
                device_name: r,
                // and a description on r1's loopback: FRR removes it only by `no description` alone
                config_commands: [
                  ...ospfAreaZero(lab, r, { routers: ROUTERS }),
                  ...(r === 'r1' ? ['interface lo', ' description set by the agent', 'exit'] : []),
                ],
              })),
            },
          },
          {
            id: 'pc',
            name: 'execute_vpcs_commands',
            args: { device_configs: [{ device_name: 'PC1', commands: ['ip 192.168.1.10/24 192.168.1.1'] }] },
          },
        ],
      },
      { text: 'OSPF area 0 runs on r1 and r2; PC1 has 192.168.1.10/24.' },
    ],
    { title: 'OSPF on r1 and r2' },
  );
  const r = await cli([
    '-p',
    'configure OSPF on r1 and r2 and give PC1 an address',
    '--json',
    '-m',
    'lab',
    '--approve',
    'config',
    ...llmFlags(llm.url),
  ]);
  if (r.code !== 0) throw new Error(`exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  const j = parseJsonResult(r.stdout);
  S = j.session_id!;
  expect(j.tool_calls.map((t) => [t.id, t.status])).toEqual([
    ['ospf', 'success'],
    ['pc', 'success'],
  ]);
  // every changed device was checkpointed (no `error` entry)
  expect(j.tool_calls.flatMap((t) => t.checkpoints ?? []).sort((a, b) => a.device.localeCompare(b.device))).toEqual([
    { device: 'PC1' },
    { device: 'r1' },
    { device: 'r2' },
  ]);
  await until(() => ROUTERS.every(neighboursFull), 30_000, 'OSPF Full on r1 and r2');
}, 180_000);

afterAll(async () => {
  if (ctx) closePool(ctx);
  await llm?.close();
  await r2Console?.close();
  await gns3?.close();
  await lab?.stop();
  env.cleanup();
});

describe('checkpoints, diff and rewind on real FRR and VPCS, the agent driven by the fake LLM', () => {
  it('the checkpoint of each router is its running configuration before the request', async () => {
    const cps = await checkpoints((cp) => cp.devicesAt(S, 1));
    expect(cps.map((c) => [c.device, c.request_no, c.call_id])).toEqual([
      ['PC1', 1, 'pc'],
      ['r1', 1, 'ospf'],
      ['r2', 1, 'ospf'],
    ]);
    for (const r of ROUTERS) expect(cps.find((c) => c.device === r)!.config).toBe(before.get(r));
    expect(cps.find((c) => c.device === 'PC1')!.config).toBe('');
  });

  it('diff shows the lines the agent added', async () => {
    const r = await cli(['diff', S, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    for (const name of ROUTERS) {
      const d = j.devices.find((x: { name: string }) => x.name === name);
      expect(d.status).toBe('planned');
      expect(d.diff).toMatch(/^\+router ospf$/m);
      expect(d.diff).toMatch(/^\+ network 10\.0\.0\.0\/16 area 0$/m);
      expect(d.diff).toMatch(/^\+ ip ospf hello-interval 1$/m);
      if (name === 'r1') expect(d.diff).toMatch(/^\+ description set by the agent$/m);
      // only additions: the agent removed nothing
      expect(d.diff.split('\n').filter((l: string) => /^-[^-]/.test(l))).toEqual([]);
    }
    expect(j.devices.find((d: { name: string }) => d.name === 'PC1').diff).toMatch(/^\+ip 192\.168\.1\.10\/24 192\.168\.1\.1$/m);
  }, 120_000);

  it('--dry-run and a rewind without --yes change nothing; without --yes the exit code is 6', async () => {
    const now = new Map(ROUTERS.map((r) => [r, running(r)]));
    const dry = await cli(['rewind', S, '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    const plan = JSON.parse(dry.stdout);
    expect(plan.devices.find((d: { name: string }) => d.name === 'r1').commands).toContain('no router ospf');
    expect(plan.devices.find((d: { name: string }) => d.name === 'PC1').commands).toEqual(['clear ip']);
    expect(plan.request_no).toBeUndefined();
    const no = await cli(['rewind', S]);
    expect(no.code).toBe(6);
    expect(no.stderr).toMatch(/--yes/);
    for (const r of ROUTERS) expect(running(r)).toBe(now.get(r));
    expect(ROUTERS.every(neighboursFull)).toBe(true);
    expect(await checkpoints((cp) => cp.requests(S).map((q) => q.kind))).toEqual(['prompt']);
  }, 120_000);

  it('a rewind killed with SIGKILL half way leaves r2 unrestored and the rewind unfinished', async () => {
    // r2's console stops passing the restore on once it enters configuration mode
    r2Console.holdAt('configure terminal');
    let child: ChildProcess | undefined;
    const run = cli(['rewind', S, '--yes', '--json'], (c) => (child = c));
    try {
      await until(() => r2Console.holding() && running('r1') === before.get('r1'), 90_000, 'r1 restored while r2 waits');
      child!.kill('SIGKILL');
      const r = await run;
      expect(r.code).toBeNull();
    } finally {
      r2Console.release();
    }
    expect(running('r2')).toMatch(/router ospf/);
    const rewinds = await checkpoints((cp) => cp.rewinds(S));
    expect(rewinds).toMatchObject([{ request_no: 2, to_request: 1, status: 'running' }]);
  }, 150_000);

  it('the next rewind resumes it and restores the checkpoint text; the adjacency and the address are gone', async () => {
    const r = await cli(['rewind', S, '--yes', '--json']);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stderr).toMatch(/resuming the unfinished rewind to before request 1/);
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({ resumed: true, request_no: 2, to: 1 });
    const status = Object.fromEntries(j.devices.map((d: { name: string; status: string }) => [d.name, d.status]));
    // r1 (and PC1) were put back by the killed run: nothing left to do for them
    expect(status).toEqual({ PC1: expect.stringMatching(/^(restored|unchanged)$/), r1: 'unchanged', r2: 'restored' });
    const cps = await checkpoints((cp) => cp.devicesAt(S, 1));
    for (const x of ROUTERS) {
      expect(running(x)).toBe(cps.find((c) => c.device === x)!.config);
      expect(running(x)).toBe(before.get(x));
    }
    expect(lab.vtysh('r1', 'show ip ospf neighbor')).not.toMatch(/Full/);
    expect(lab.vtysh('r2', 'show ip ospf neighbor')).not.toMatch(/Full/);
    const pc = await captureDevices(['PC1'], ctx);
    closePool(ctx);
    expect(pc.get('PC1')!.config).toBe('');
    await checkpoints((cp) => {
      expect(cp.requests(S).map((q) => q.kind)).toEqual(['prompt', 'rewind']);
      expect(cp.rewinds(S)).toMatchObject([{ request_no: 2, status: 'done' }]);
      // the rewind checkpointed what it undid: rewinding it would bring OSPF back
      for (const x of ROUTERS) expect(cp.devicesAt(S, 2).find((d) => d.device === x)!.config).toMatch(/router ospf/);
    });
  }, 120_000);

  it("the TUI's /rewind undoes the rewind: the approval box previews each device's diff, OSPF comes back", async () => {
    // the TUI talks to the controller in process: credentials from the env, as a user without a keychain has them
    process.env.GNS3_COPILOT_KEYCHAIN = 'off';
    process.env.GNS3_USER = 'admin';
    process.env.GNS3_PASSWORD = 'admin-pass';
    const store = await SessionStore.open(`${env.home}/data`);
    const t = mount({
      settings: testSettings({
        project: 'rw',
        server: gns3.url,
        data_dir: `${env.home}/data`,
        mode: 'lab',
        connect_timeout_ms: 15_000,
        verify_quiet: 0,
      }),
      invocation: { resumeId: S },
      rows: 80,
      columns: 120,
    });
    t.services.sessionRequests = async (_s, id) => sessionRequests(store, id);
    t.services.rewind = (st: Settings, o: TuiRewindOptions) => rewindFromTui(st, store, o);
    const seen = (text: string) => t.frames.some((f) => stripAnsi(f).includes(text));
    try {
      await t.ready();
      await t.type('/rewind');
      await t.waitFor('2. rewind to before request 1');
      // newest first: Enter picks request 2, the lab as the agent left it
      await t.press('\r');
      await t.waitFor('Approve execute_multiple_device_config_commands?', 60_000);
      let f = t.frame();
      expect(f).toContain('preview, configuration now → after:');
      expect(f).toMatch(/^\W*\+router ospf\s*│$/m);
      expect(f).toMatch(/^\W*\+ network 10\.0\.0\.0\/16 area 0\s*│$/m);
      expect(running('r1')).not.toMatch(/router ospf/);
      await t.press('y');
      await t.waitFor('Approve execute_vpcs_commands?', 60_000);
      f = t.frame();
      expect(f).toMatch(/^\W*\+ip 192\.168\.1\.10\/24 192\.168\.1\.1\s*│$/m);
      await t.press('y');
      await untilFrame(() => seen('✓ rewind to just before request 2 (request 3): restored'), 60_000, `the outcome\n${t.frame()}`);
      for (const r of ROUTERS) expect(running(r)).toMatch(/router ospf/);
      await until(() => ROUTERS.every(neighboursFull), 30_000, 'OSPF Full again');
    } finally {
      cleanup();
      store.close();
    }
  }, 180_000);
});

/**
 * End to end: automatic verification of `execute_multiple_device_config_commands` on the real
 * FRR triangle (R1–R3, OSPF Full) behind a fake GNS3 controller, the built CLI in one-shot mode
 * and a fake LLM over HTTP. A change that shuts R2's interface towards R1 regresses the lab:
 * `--on-regression keep` exits 7 with the `verification` event (stream-json) naming the lost
 * neighbour, stored with the call (`sessions show`); `--on-regression rewind` rewinds R2 through
 * the gate to the checkpoint taken before that call (an earlier call's change to R2 in the same
 * request stays) and the neighbour is Full again; the TUI (the real App on the real services)
 * asks, `y` rewinds and the neighbour is Full again; a linked router that cannot be read makes the
 * verification `error`, never `pass`. Needs root + frr (fails, never skips, when missing).
 */
import { createServer } from 'node:net';
import { createElement } from 'react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { render } from 'ink-testing-library';
import { App } from '../../src/ui/components/App.js';
import { createRealServices } from '../../src/ui/services.js';
import { stripAnsi } from '../../src/ui/style.js';
import { nullLogger } from '../../src/log.js';
import { sessionOpener } from '../../src/commands/agent-session.js';
import { testSettings } from '../agent/helpers.js';
import { tuiInvocation } from '../ui/helpers/fake-services.js';
import type { Lab } from '../lab/lab.js';
import type { FakeGns3 } from '../fakes/gns3/server.js';
import type { FakeToolCall } from '../fakes/llm/server.js';
import { frrLabNode } from '../fakes/gns3/nodes.js';
import { fakeLlmServers } from '../helpers/fake-llm.js';
import { cliEnv, llmFlags, runCli } from './oneshot-cli.js';
import { parseJsonResult, parseStreamJson } from './oneshot-schema.js';
import { ROUTERS, fullNeighbours, ospfConfig, startOspfLab, waitForFullMesh, type OspfLab } from './ospf-lab.js';

const PROJECT = 'regress-lab';
let ospf: OspfLab | undefined;
let lab: Lab;
let gns3: FakeGns3;
// the regressions here are on the changed router and its neighbour, seen at once: OSPF's flooding wait
// (verify_quiet, proven on a far router in changeset-checks-lab) is off
const env = cliEnv({ GNS3_USER: 'admin', GNS3_PASSWORD: 'admin-pass', GNS3_COPILOT_VERIFY_QUIET: '0' });
const startLlm = fakeLlmServers();

/** R2's interface on the R1–R2 link (link 0: R1 is its a side, R2 its b side). */
const r2ToR1 = () => lab.links[0]!.bInterface;

const shutCall = (): FakeToolCall => ({
  id: 'cut',
  name: 'execute_multiple_device_config_commands',
  args: { device_configs: [{ device_name: 'R2', config_commands: [`interface ${r2ToR1()}`, 'shutdown', 'exit'] }] },
});

/** An earlier call of the same request that changes R2 too (a regression's rewind of the later call keeps it). */
const describeCall = (text: string): FakeToolCall => ({
  id: 'desc',
  name: 'execute_multiple_device_config_commands',
  args: { device_configs: [{ device_name: 'R2', config_commands: ['interface lo', `description ${text}`, 'exit'] }] },
});

/** One request; each element of `turns` is one model turn's tool calls (its own batch). */
async function oneShot(turns: FakeToolCall[][], flags: string[]) {
  const llm = await startLlm([...turns.map((tool_calls) => ({ tool_calls })), { text: 'done' }], { title: 'regression' });
  return runCli(
    ['-p', 'change R2', '-m', 'lab', '--approve', 'config', '--server', gns3.url, '--project', PROJECT, ...llmFlags(llm.url), ...flags],
    env.env,
    { timeoutMs: 150_000 },
  );
}

/** Waits (up to timeoutMs) on the routers' state, never a fixed sleep. */
async function until(cond: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!cond() && Date.now() < deadline) await new Promise((res) => setTimeout(res, 300));
  return cond();
}

const r2Neighbours = () => lab.vtysh('R2', 'show ip ospf neighbor');

beforeAll(async () => {
  ospf = await startOspfLab(PROJECT);
  ({ lab, gns3 } = ospf);
  // the controller knows the links too: the verification reads the changed routers' linked neighbours
  for (const l of lab.links)
    gns3.addLink({ a: `${l.a}:${l.aInterface.replace('eth', 'e')}`, b: `${l.b}:${l.bInterface.replace('eth', 'e')}` });
  for (const r of ROUTERS) lab.vtysh(r, 'configure terminal', ...ospfConfig(lab, r), 'end');
  await waitForFullMesh(lab, 60_000);
  for (const r of ROUTERS) expect(fullNeighbours(lab, r)).toBe(2);
}, 180_000);

afterAll(async () => {
  await ospf?.stop();
  env.cleanup();
});

describe('one-shot: a configuration change that regresses the lab', () => {
  it('--on-regression keep: exit 7, the verification event names the lost neighbour, sessions show has it', async () => {
    const r = await oneShot([[shutCall()]], ['--stream-json']);
    expect(r.code, r.stderr).toBe(7);
    const events = parseStreamJson(r.stdout);
    const v = events.find((e) => e.type === 'verification');
    expect(v).toMatchObject({ type: 'verification', id: 'cut', name: 'execute_multiple_device_config_commands', status: 'regressed' });
    if (v?.type !== 'verification') throw new Error('no verification event');
    expect(v.regressions).toContainEqual(
      expect.objectContaining({ device: 'R2', kind: 'ospf_neighbor', what: '10.255.255.1', before: 'Full' }),
    );
    // R1 saw its side of the link go down: a regression on a linked router the call did not touch
    expect(v.regressions.some((x) => x.device === 'R1')).toBe(true);
    // R2's own interface is what the change said: intended, not a regression
    expect(v.intended).toContainEqual(expect.objectContaining({ device: 'R2', kind: 'interface', what: r2ToR1() }));
    expect(v.settle_ms).toBeGreaterThan(0);
    // the event follows the call's tool_end
    expect(events.findIndex((e) => e.type === 'tool_end' && e.id === 'cut')).toBeLessThan(events.indexOf(v));
    expect(r.stderr).toMatch(/regression: R2 lost OSPF neighbour 10\.255\.255\.1/);
    expect(r.stderr).toMatch(/kept \(--on-regression keep\): exit 7/);
    // kept: R2 is still cut off from R1
    expect(r2Neighbours()).not.toMatch(/10\.255\.255\.1\s+\S+\s+Full/);

    const init = events.find((e) => e.type === 'init');
    if (init?.type !== 'init') throw new Error('no init event');
    const shown = await runCli(['sessions', 'show', init.session_id, '--json'], env.env);
    expect(shown.code, shown.stderr).toBe(0);
    const messages = (JSON.parse(shown.stdout) as { messages: { role: string; tool_call_id?: string; verification?: unknown }[] }).messages;
    expect(messages.find((m) => m.role === 'tool' && m.tool_call_id === 'cut')?.verification).toMatchObject({
      status: 'regressed',
      regressions: expect.arrayContaining([expect.objectContaining({ device: 'R2', what: '10.255.255.1' })]),
    });
    const md = await runCli(['sessions', 'export', init.session_id], env.env);
    expect(md.stdout).toMatch(/^Verification: ✗ regressed: /m);
    expect(md.stdout).toMatch(/^- regression: R2 ospf_neighbor 10\.255\.255\.1: Full → /m);

    // back as it was, out of band, for the next test
    lab.vtysh('R2', 'configure terminal', `interface ${r2ToR1()}`, 'no shutdown', 'end');
    await waitForFullMesh(lab, 60_000);
  }, 240_000);

  it('--on-regression rewind: R2 goes back to the checkpoint before the regressed call (the earlier call stays), Full again', async () => {
    // two calls of one request, each its own batch: a description on R2, then the cut
    const r = await oneShot([[describeCall('kept-by-rewind')], [shutCall()]], ['--json', '--on-regression', 'rewind']);
    expect(r.code, r.stderr).toBe(0);
    const j = parseJsonResult(r.stdout);
    expect(j.tool_calls.map((c) => [c.id, c.verification?.status])).toEqual([
      ['desc', 'pass'],
      ['cut', 'regressed'],
    ]);
    expect(j.tool_calls[1]!.verification!.regressions).toContainEqual(
      expect.objectContaining({ device: 'R2', kind: 'ospf_neighbor', what: '10.255.255.1' }),
    );
    expect(j.regression).toMatchObject({ action: 'rewind', status: 'rewound', calls: ['cut'], devices: ['R2'] });
    // R2's second checkpoint of the request: the one taken before the cut, not before the description
    expect(j.regression!.checkpoints).toHaveLength(1);
    expect(j.regression!.rewind).toMatch(/^✓ rewind to just before the regressed call of request 1/);
    const running = lab.vtysh('R2', 'show running-config');
    expect(running).not.toMatch(new RegExp(`interface ${r2ToR1()}\\n(?: .*\\n)* shutdown`));
    // the first call's change is still there: the rewind restored the checkpoint before the cut, not the request's first
    expect(running).toMatch(/interface lo\n(?: .*\n)* description kept-by-rewind/);
    expect(await until(() => /10\.255\.255\.1\s+\S+\s+Full/.test(r2Neighbours()), 60_000)).toBe(true);
    lab.vtysh('R2', 'configure terminal', 'interface lo', 'no description', 'end');
  }, 240_000);

  it('TUI: the question after the turn, y rewinds R2 through the approval box and the neighbour is Full again', async () => {
    const saved = { keychain: process.env.GNS3_COPILOT_KEYCHAIN, user: process.env.GNS3_USER, password: process.env.GNS3_PASSWORD };
    // the TUI talks to the controller in process: credentials from the env, as a user without a keychain has them
    process.env.GNS3_COPILOT_KEYCHAIN = 'off';
    process.env.GNS3_USER = 'admin';
    process.env.GNS3_PASSWORD = 'admin-pass';
    const llm = await startLlm([{ tool_calls: [shutCall()] }, { text: 'R2 is cut off from R1.' }], { title: 'regression' });
    const settings = testSettings(llm.url, `${env.home}/tui-data`, {
      server: gns3.url,
      project: PROJECT,
      mode: 'lab',
      approve: 'config',
      connect_timeout_ms: 15_000,
      verify_quiet: 0,
    });
    const r = render(
      createElement(App, {
        settings,
        invocation: tuiInvocation(),
        services: createRealServices(nullLogger, sessionOpener),
        color: false,
        onExit: () => undefined,
        retryMs: 150,
        flushMs: 5,
      }),
    );
    const frames: string[] = [];
    const frame = () => {
      const f = stripAnsi(r.lastFrame() ?? '');
      frames.push(f);
      return f;
    };
    const seen = (text: string) => frame().includes(text) || frames.some((f) => f.includes(text));
    const press = async (k: string) => {
      r.stdin.write(k);
      await new Promise((res) => setTimeout(res, 25));
    };
    try {
      expect(await until(() => seen('›'), 10_000), frame()).toBe(true);
      await press('shut R2 towards R1');
      await press('\r');
      expect(await until(() => seen('R2 lost OSPF neighbour 10.255.255.1'), 150_000), frame()).toBe(true);
      expect(frame()).toMatch(/rewind R2\? y\/n/);
      expect(r2Neighbours()).not.toMatch(/10\.255\.255\.1\s+\S+\s+Full/);
      await press('y');
      // the rewind's restore is asked in the approval box like any change
      expect(await until(() => seen('Approve execute_multiple_device_config_commands?'), 60_000), frame()).toBe(true);
      await press('y');
      expect(await until(() => seen('✓ rewind to just before the regressed call of request 1'), 60_000), frame()).toBe(true);
      expect(await until(() => /10\.255\.255\.1\s+\S+\s+Full/.test(r2Neighbours()), 60_000)).toBe(true);
    } finally {
      r.stdin.write('\u0004');
      r.unmount();
      for (const [k, v] of [
        ['GNS3_COPILOT_KEYCHAIN', saved.keychain],
        ['GNS3_USER', saved.user],
        ['GNS3_PASSWORD', saved.password],
      ] as const)
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
  }, 300_000);

  it('a linked router that cannot be read: the verification is error with the reason, never pass', async () => {
    // R4 hangs off R2 in the controller's topology, its console is closed
    const port = await new Promise<number>((resolve) => {
      const srv = createServer();
      srv.listen(0, '127.0.0.1', () => {
        const p = (srv.address() as { port: number }).port;
        srv.close(() => resolve(p));
      });
    });
    gns3.addNode(frrLabNode({ name: 'R4', consoleHost: '127.0.0.1', consolePort: port }, { ports: 4 }));
    gns3.addLink({ a: 'R2:e3', b: 'R4:e0' });
    const harmless: FakeToolCall = {
      id: 'desc',
      name: 'execute_multiple_device_config_commands',
      args: { device_configs: [{ device_name: 'R2', config_commands: ['interface lo', 'description verified', 'exit'] }] },
    };
    const r = await oneShot([[harmless]], ['--json']);
    expect(r.code, r.stderr).toBe(0);
    const v = parseJsonResult(r.stdout).tool_calls[0]!.verification;
    expect(v).toMatchObject({ status: 'error', regressions: [] });
    expect(v!.reason).toMatch(/R4/);
  }, 240_000);
});

/**
 * End to end: automatic verification of `execute_multiple_device_config_commands` on the real
 * FRR triangle (R1–R3, OSPF Full) behind a fake GNS3 controller, the built CLI in one-shot mode
 * and a fake LLM over HTTP. A change that shuts R2's interface towards R1 regresses the lab:
 * `--on-regression keep` exits 7 with the `verification` event (stream-json) naming the lost
 * neighbour, stored with the call (`sessions show`); `--on-regression rewind` rewinds R2 through
 * the gate and the neighbour is Full again; a linked router that cannot be read makes the
 * verification `error`, never `pass`. Needs root + frr (fails, never skips, when missing).
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
const env = cliEnv({ GNS3_USER: 'admin', GNS3_PASSWORD: 'admin-pass' });
const startLlm = fakeLlmServers();

/** R2's interface on the R1–R2 link (link 0: R1 is its a side, R2 its b side). */
const r2ToR1 = () => lab.links[0]!.bInterface;

const shutCall = (): FakeToolCall => ({
  id: 'cut',
  name: 'execute_multiple_device_config_commands',
  args: { device_configs: [{ device_name: 'R2', config_commands: [`interface ${r2ToR1()}`, 'shutdown', 'exit'] }] },
});

async function oneShot(calls: FakeToolCall[], flags: string[]) {
  const llm = await startLlm([{ tool_calls: calls }, { text: 'done' }], { title: 'regression' });
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
    const r = await oneShot([shutCall()], ['--stream-json']);
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

  it('--on-regression rewind: R2 is rewound through the gate and the neighbour is Full again; --json carries the verification', async () => {
    const r = await oneShot([shutCall()], ['--json', '--on-regression', 'rewind']);
    expect(r.code, r.stderr).toBe(0);
    const j = parseJsonResult(r.stdout);
    expect(j.tool_calls[0]!.verification).toMatchObject({ status: 'regressed' });
    expect(j.tool_calls[0]!.verification!.regressions).toContainEqual(
      expect.objectContaining({ device: 'R2', kind: 'ospf_neighbor', what: '10.255.255.1' }),
    );
    expect(j.regression).toMatchObject({ action: 'rewind', status: 'rewound', calls: ['cut'], devices: ['R2'] });
    expect(j.regression!.rewind).toMatch(/^✓ rewind to just before request 1/);
    expect(lab.vtysh('R2', 'show running-config')).not.toMatch(new RegExp(`interface ${r2ToR1()}\\n(?: .*\\n)* shutdown`));
    expect(await until(() => /10\.255\.255\.1\s+\S+\s+Full/.test(r2Neighbours()), 60_000)).toBe(true);
  }, 240_000);

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
    const r = await oneShot([harmless], ['--json']);
    expect(r.code, r.stderr).toBe(0);
    const v = parseJsonResult(r.stdout).tool_calls[0]!.verification;
    expect(v).toMatchObject({ status: 'error', regressions: [] });
    expect(v!.reason).toMatch(/R4/);
  }, 240_000);
});

/**
 * A change's verification with the session's check file, and `diff --state` after it, on the
 * real FRR lab (three routers in a chain, OSPF converged out of band) behind the fake GNS3
 * controller, through the agent with the fake LLM over HTTP: a change that shuts R2's link to
 * R3 breaks two checks that passed before (R3's neighbour R2, R1's route to R3's loopback), so
 * the verification is `regressed` with kind `check`; `diff --state` then shows R3's lost OSPF
 * neighbour and R2's interface down beside the configuration diff. Needs root + frr (fails,
 * never skips, when missing).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startLab, type Lab } from '../lab/lab.js';
import { ospfAreaZero, waitForOspfConverged } from '../lab/ospf.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { frrLabNode } from '../fakes/gns3/nodes.js';
import { captureStdout, collect, ofType, session, testSettings, useFakeLlm } from '../agent/helpers.js';
import { allTools } from '../../src/tools/index.js';
import { diffCommand } from '../../src/commands/rewind.js';
import type { Regression } from '../../src/check/state.js';
import type { StateDiffReport } from '../../src/undo/state-diff-session.js';

const ROUTERS = ['R1', 'R2', 'R3'];
const PROJECT = 'verify-checks-lab';
const { tmp, startLlm } = useFakeLlm('gc-verify-checks-');
let lab: Lab;
let gns3: FakeGns3;
let checksFile: string;

const converged = () => waitForOspfConverged(lab, ROUTERS, 90_000);
/** R2's interface on its link to R3 */
const r2ToR3 = () => lab.links.find((l) => l.a === 'R2' && l.b === 'R3')!.aInterface;

beforeAll(async () => {
  lab = await startLab({
    routers: ROUTERS,
    links: [
      ['R1', 'R2'],
      ['R2', 'R3'],
    ],
  });
  // FRR's default flooding (no quickFlooding): the late route loss this test is about comes from it
  for (const r of ROUTERS) lab.vtysh(r, 'configure terminal', ...ospfAreaZero(lab, r, { routers: ROUTERS }), 'end');
  gns3 = await startFakeGns3({ api: 'v2' });
  gns3.addProject({ name: PROJECT });
  for (const r of ROUTERS) gns3.addNode(frrLabNode(lab.device(r), { project: PROJECT }));
  // the topology's links: the verification reads the routers linked to the ones it changes
  gns3.addLink({ a: 'R1:e0', b: 'R2:e0', project: PROJECT });
  gns3.addLink({ a: 'R2:e1', b: 'R3:e0', project: PROJECT });
  checksFile = join(tmp.dir, 'lab-checks.yaml');
  writeFileSync(
    checksFile,
    `checks:
  - name: R3 keeps R2 as OSPF neighbour
    ospf_neighbor: {device: R3, neighbor: 10.255.255.2}
  - name: R1 reaches R3's loopback
    route: {device: R1, prefix: 10.255.255.3/32, protocol: ospf}
  - name: R1 keeps R2 as OSPF neighbour
    ospf_neighbor: {device: R1, neighbor: 10.255.255.2}
  - name: already failing, never a regression
    route: {device: R1, prefix: 10.99.0.0/16}
`,
  );
  await converged();
}, 180_000);

afterAll(async () => {
  await gns3?.close();
  await lab?.stop();
});

describe('verification with a check file, then diff --state (FRR lab)', () => {
  it('a change that breaks passing checks is regressed with kind check; diff --state shows the lost neighbour', async () => {
    const iface = r2ToR3();
    // R2's router-LSA without the link reaches R1 seconds later (8–9.5 s measured): R1 loses R3's
    // loopback only then, and a verification that settled on the first two equal reads misses it
    const llm = await startLlm([
      {
        tool_calls: [
          {
            id: 'shut',
            name: 'apply_config_template',
            args: { template: 'interface {{ iface }}\n shutdown', devices: ['R2'], vars: { iface } },
          },
        ],
      },
      { text: 'done' },
    ]);
    const settings = testSettings(llm.url, tmp.dir, {
      server: gns3.url,
      project: PROJECT,
      mode: 'lab',
      approve: 'config',
      checks: checksFile,
      verify_timeout: 30,
    });
    const s = await session(settings, allTools());
    let sessionId: string;
    try {
      sessionId = s.id;
      const ev = await collect(s.send('shut R2 towards R3'));
      const [end] = ofType(ev, 'tool_end');
      const result = JSON.parse(end!.output) as { verification: { status: string; regressions: Regression[]; intended: Regression[] } };
      const v = result.verification;
      expect(v.status).toBe('regressed');
      const checks = v.regressions.filter((r) => r.kind === 'check');
      expect(checks.map((r) => [r.device, r.what]).sort()).toEqual([
        ['R1', "R1 reaches R3's loopback"],
        ['R3', 'R3 keeps R2 as OSPF neighbour'],
      ]);
      expect(checks.find((r) => r.device === 'R3')!.before).toMatch(/^pass: /);
      expect(checks.find((r) => r.device === 'R3')!.after).toMatch(/^fail: /);
      // the state comparison still says it too: R3 lost R2; R2's own shutdown is what the change stated
      expect(v.regressions).toContainEqual(expect.objectContaining({ device: 'R3', kind: 'ospf_neighbor', what: '10.255.255.2' }));
      expect(v.intended).toContainEqual(expect.objectContaining({ device: 'R2', kind: 'interface', what: iface }));
    } finally {
      await s.close();
    }

    // diff --state: the stored baselines against a fresh read, beside the configuration diff
    const diffSettings = { ...settings, checks: undefined };
    const ctl = new AbortController();
    const json = await captureStdout(() => diffCommand(sessionId, { state: true, json: true }, diffSettings, ctl.signal));
    const out = JSON.parse(json) as { devices: { name: string; diff: string }[]; state: StateDiffReport };
    expect(out.devices.find((d) => d.name === 'R2')!.diff).toMatch(/^\+ shutdown$/m);
    expect(out.state.to).toBe(1);
    const r3 = out.state.devices.find((d) => d.device === 'R3')!;
    expect(r3).toMatchObject({ baseline_request: 1, status: 'changed' });
    expect(r3.lost).toContainEqual({ kind: 'ospf_neighbor', what: '10.255.255.2', before: 'Full' });
    const r2 = out.state.devices.find((d) => d.device === 'R2')!;
    expect(r2.changed).toContainEqual(expect.objectContaining({ kind: 'interface', what: iface, after: expect.stringMatching(/^down/) }));
    const text = await captureStdout(() => diffCommand(sessionId, { state: true }, diffSettings, ctl.signal));
    expect(text).toMatch(/^ {2}R3 \(baseline of request 1\): \d+ added, \d+ lost, \d+ changed$/m);
    expect(text).toMatch(/^ {4}- ospf_neighbor 10\.255\.255\.2: Full$/m);
  }, 240_000);
});

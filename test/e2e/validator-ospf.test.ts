/**
 * Acceptance of the Validator on the real FRR lab: the built CLI (AGENT_MODE=recursive),
 * a fake LLM over HTTP, the fake GNS3 controller whose consoles are the real routers.
 * R2's interface to R1 is shut, so R1 has one Full neighbour; a child claims two. The
 * Validator re-observes with `show ip ospf neighbor` on R1 (a read-only tool of the
 * child's set, run on the real router); its scripted model decides from that output, so
 * the verdict is `fail` because of what the router said. Its forged config call (a
 * `no shutdown` on R2) is blocked before it runs: R2's interface stays shut.
 * Needs root + frr (fails, never skips, when missing).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lab } from '../lab/lab.js';
import type { FakeGns3 } from '../fakes/gns3/server.js';
import type { FakeRequest, FakeTurn } from '../fakes/llm/server.js';
import { fakeLlmServers } from '../helpers/fake-llm.js';
import { cliEnv, llmFlags, runCli } from './oneshot-cli.js';
import { ROUTERS, fullNeighbours, ospfConfig, startOspfLab, waitForFullMesh, type OspfLab } from './ospf-lab.js';

let ospf: OspfLab | undefined;
let lab: Lab;
let gns3: FakeGns3;
/** R2's end of the R1–R2 link */
let r2ToR1: string;
const env = cliEnv({ GNS3_USER: 'admin', GNS3_PASSWORD: 'admin-pass', AGENT_MODE: 'recursive' });
const startLlm = fakeLlmServers();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  ospf = await startOspfLab('ospf-validator');
  ({ lab, gns3 } = ospf);
  for (const r of ROUTERS) lab.vtysh(r, 'configure terminal', ...ospfConfig(lab, r));
  await waitForFullMesh(lab, 40_000);
  expect(fullNeighbours(lab, 'R1')).toBe(2);
  // one neighbour down: R2 shuts its interface to R1; R1 drops it after the 4 s dead interval
  r2ToR1 = lab.links.find((l) => l.a === 'R1' && l.b === 'R2')!.bInterface;
  lab.vtysh('R2', 'configure terminal', `interface ${r2ToR1}`, 'shutdown');
  const deadline = Date.now() + 20_000;
  while (fullNeighbours(lab, 'R1') !== 1 && Date.now() < deadline) await sleep(250);
  expect(fullNeighbours(lab, 'R1')).toBe(1);
}, 120_000);

afterAll(async () => {
  await ospf?.stop();
  env.cleanup();
});

const showOn = (id: string, router: string, command: string): FakeTurn => ({
  tool_calls: [{ id, name: 'execute_multiple_device_commands', args: { device_configs: [{ device_name: router, commands: [command] }] } }],
});

/** The Validator's scripted model: R1 should have two Full neighbours; it counts them in what its own tool call returned. */
function verdictFromShow(body: FakeRequest['body']): { text: string } {
  const content = body.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'v1')?.content;
  const out = typeof content === 'string' ? content : JSON.stringify(content ?? '');
  const full = out.match(/Full\//g)?.length ?? 0;
  const ok = /Neighbor ID/.test(out) && full >= 2;
  return {
    text: JSON.stringify({
      verdict: ok ? 'pass' : 'fail',
      checks: [
        { claim: 'R1 has two OSPF neighbours, both Full', ok, evidence: `v1: show ip ospf neighbor on R1 lists ${full} Full neighbour(s)` },
      ],
      summary: ok ? 'R1 has two Full neighbours' : `R1 has ${full} Full neighbour(s), not two`,
    }),
  };
}

describe('Validator re-check on the real routers', () => {
  it("a child's false OSPF claim is `fail` from the Validator's own show ip ospf neighbor; its forged config call is blocked", async () => {
    const script: FakeTurn[] = [
      { tool_calls: [{ id: 'split', name: 'agent', args: { task_brief: { goal: 'verify OSPF on R1', constraints: ['read-only'] } } }] },
      { when: '## Goal\\nverify OSPF on R1', ...showOn('c1', 'R1', 'show ip ospf') },
      { when: '"c1"', text: 'R1 has two OSPF neighbours, both Full.' },
      // the root reviews the failed report before it answers
      {
        tool_calls: [
          {
            id: 'rv',
            name: 'review_task',
            args: { agent_id: '{{agent_id:split}}', decision: 'accept', note: 'the Validator found a neighbour down' },
          },
        ],
      },
      { text: 'The sub-agent says OSPF on R1 is fine, but its Validator found a neighbour down.' },
    ];
    const validator: FakeTurn[] = [
      showOn('v1', 'R1', 'show ip ospf neighbor'),
      {
        tool_calls: [
          {
            id: 'forged',
            name: 'execute_multiple_device_config_commands',
            args: { device_configs: [{ device_name: 'R2', config_commands: [`interface ${r2ToR1}`, 'no shutdown'] }] },
          },
        ],
      },
      { reply: verdictFromShow },
    ];
    const llm = await startLlm(script, { validator, title: 'OSPF check' });
    const r = await runCli(
      [
        '-p',
        'verify OSPF on R1',
        '--stream-json',
        '--approve',
        'all',
        '--server',
        gns3.url,
        '--project',
        'ospf-validator',
        ...llmFlags(llm.url),
      ],
      env.env,
      { timeoutMs: 120_000 },
    );
    if (r.code !== 0) throw new Error(`exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
    const events = r.stdout
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Record<string, unknown>);

    // the Validator's read-only call ran on the real R1 and saw one Full neighbour
    const vreqs = llm.requests.filter((q) => q.purpose === 'validator');
    expect(vreqs).toHaveLength(3);
    const seen = String(vreqs[2]!.body.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'v1')!.content);
    expect(seen).toMatch(/Neighbor ID/);
    expect(seen.match(/Full\//g)).toHaveLength(1);
    expect(events.find((e) => e.type === 'tool_end' && e.id === 'v1')).toMatchObject({ status: 'success', depth: 1 });

    // the verdict follows from that output
    const validation = events.find((e) => e.type === 'validation')!;
    expect(validation).toMatchObject({ verdict: 'fail', summary: 'R1 has 1 Full neighbour(s), not two', depth: 1 });
    expect(validation.checks).toContainEqual({
      claim: 'R1 has two OSPF neighbours, both Full',
      ok: false,
      evidence: 'v1: show ip ospf neighbor on R1 lists 1 Full neighbour(s)',
    });
    // the root reads the report with its validation
    const rootLast = llm.requests.filter((q) => q.purpose === null).at(-1)!;
    const result = JSON.parse(String(rootLast.body.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'split')!.content)) as {
      result: string;
      validation: { verdict: string };
    };
    expect(result).toMatchObject({ result: 'R1 has two OSPF neighbours, both Full.', validation: { verdict: 'fail' } });

    // the forged config call was blocked before it ran (even with --approve all): R2's interface is still shut
    const forged = events.find((e) => e.type === 'tool_end' && e.id === 'forged')!;
    expect(forged).toMatchObject({ status: 'blocked', depth: 1 });
    expect(String(forged.output)).toMatch(/the Validator may run only read-only tools/);
    expect(events.some((e) => e.type === 'tool_start' && e.id === 'forged')).toBe(false);
    expect(lab.vtysh('R2', 'show running-config')).toMatch(new RegExp(`interface ${r2ToR1}\\r?\\n(?: .*\\r?\\n)*? shutdown`));
    expect(fullNeighbours(lab, 'R1')).toBe(1);
    expect(events.at(-1)).toMatchObject({ type: 'done', stopped_reason: 'done' });
  }, 150_000);
});

/**
 * End to end: the built CLI with AGENT_MODE=recursive, a fake LLM, the fake
 * GNS3 controller whose consoles are the real FRR lab. The root delegates "verify OSPF
 * on R1" and "verify OSPF on R2/R3" to two children; the children read the real
 * neighbour tables; the root's last request holds both TaskReports, and --json lists
 * both agents with their evidence. Needs root + frr (fails, never skips, when missing).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lab } from '../lab/lab.js';
import type { FakeGns3 } from '../fakes/gns3/server.js';
import type { FakeTurn } from '../fakes/llm/server.js';
import { fakeLlmServers } from '../helpers/fake-llm.js';
import { cliEnv, llmFlags, runCli } from './oneshot-cli.js';
import { parseJsonResult } from './oneshot-schema.js';
import { ROUTERS, ospfConfig, startOspfLab, waitForFullMesh, type OspfLab } from './ospf-lab.js';

let ospf: OspfLab | undefined;
let lab: Lab;
let gns3: FakeGns3;
const env = cliEnv({ GNS3_USER: 'admin', GNS3_PASSWORD: 'admin-pass', AGENT_MODE: 'recursive' });
const startLlm = fakeLlmServers();

beforeAll(async () => {
  ospf = await startOspfLab('ospf-tree');
  ({ lab, gns3 } = ospf);
  // OSPF configured out of band: this test is about delegation, not configuration
  for (const r of ROUTERS) lab.vtysh(r, 'configure terminal', ...ospfConfig(lab, r));
  await waitForFullMesh(lab, 40_000);
}, 120_000);

afterAll(async () => {
  await ospf?.stop();
  env.cleanup();
});

const show = (id: string, routers: string[]) => ({
  tool_calls: [
    {
      id,
      name: 'execute_multiple_device_commands',
      args: { device_configs: routers.map((r) => ({ device_name: r, commands: ['show ip ospf neighbor'] })) },
    },
  ],
});

describe('recursive e2e: two children verify OSPF on the real routers', () => {
  it('the root delegates R1 and R2/R3; its final request cites both reports', async () => {
    const script: FakeTurn[] = [
      {
        tool_calls: [
          {
            id: 'split',
            name: 'agent',
            args: { task_brief: [{ goal: 'verify OSPF on R1', constraints: ['read-only'] }, { goal: 'verify OSPF on R2/R3' }] },
          },
        ],
      },
      { when: 'verify OSPF on R1', ...show('v1', ['R1']) },
      { when: '"v1"', text: 'R1: two OSPF neighbours, both Full.' },
      { when: 'verify OSPF on R2/R3', ...show('v23', ['R2', 'R3']) },
      { when: '"v23"', text: 'R2 and R3: two OSPF neighbours each, all Full.' },
      // the root reviews both reports before it answers
      {
        tool_calls: [0, 1].map((i) => ({
          id: `rv${i}`,
          name: 'review_task',
          args: { agent_id: `{{agent_id:split#${i}}}`, decision: 'accept', note: '' },
        })),
      },
      { text: 'Per the R1 report and the R2/R3 report, every router has two Full OSPF neighbours.' },
    ];
    const llm = await startLlm(script, { title: 'OSPF tree' });
    const r = await runCli(
      ['-p', 'verify OSPF on R1, R2 and R3', '--json', '--server', gns3.url, '--project', 'ospf-tree', ...llmFlags(llm.url)],
      env.env,
      { timeoutMs: 120_000 },
    );
    if (r.code !== 0) throw new Error(`exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
    const j = parseJsonResult(r.stdout);
    expect(j.agents!.map((a) => [a.goal, a.status, a.depth])).toEqual([
      ['verify OSPF on R1', 'completed', 1],
      ['verify OSPF on R2/R3', 'completed', 1],
    ]);
    const evidence = j.agents!.map((a) => (a.report as { evidence: { devices: string[]; status: string }[] }).evidence[0]);
    expect(evidence).toEqual([
      expect.objectContaining({ devices: ['R1'], status: 'success' }),
      expect.objectContaining({ devices: ['R2', 'R3'], status: 'success' }),
    ]);
    // the root's last request: both reports as the agent tool's result
    const chat = llm.requests.filter((q) => q.purpose === null);
    const last = chat[chat.length - 1]!;
    const result = String(last.body.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'split')!.content);
    expect(result).toContain('R1: two OSPF neighbours, both Full.');
    expect(result).toContain('R2 and R3: two OSPF neighbours each, all Full.');
    // the children's tool calls read the real routers
    const childReq = chat.find((q) => q.body.messages.some((m) => m.role === 'tool' && m.tool_call_id === 'v23'))!;
    const out = String(childReq.body.messages.find((m) => m.tool_call_id === 'v23')!.content);
    expect(out).toMatch(/Neighbor ID/);
    expect(out).toMatch(/Full/);
    expect(j.response).toContain('R2/R3 report');
    expect(j.resource_usage).toMatchObject({ agents: 3, llm_calls: 11 }); // root 4, children 1 + 2, one Validator call each, the root Validator, the title
  }, 150_000);
});

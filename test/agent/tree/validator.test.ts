/** The Validator of recursive children: deterministic pre-checks, the LLM re-check with read-only tools, structured verdicts. */
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeLlm, FakeRequest, FakeTurn } from '../../fakes/llm/server.js';
import { collect, ofType, session, showCall, useFakeLlm, testSettings, testTools, type ToolLog } from '../helpers.js';
import { rig, type Rig } from '../../gns3/helpers.js';
import { gns3Tools } from '../../../src/tools/gns3/index.js';
import type { TaskReport } from '../../../src/agent/tree/report.js';
import { parseValidation } from '../../../src/agent/tree/validator.js';
import { review } from './helpers.js';

const { tmp, startLlm } = useFakeLlm('gc-tree-val-');
let llm: FakeLlm | undefined;
let gns3: Rig | undefined;
afterEach(async () => {
  await gns3?.close();
  gns3 = undefined;
});
const env = { AGENT_MODE: 'recursive' };
const chat = (l: FakeLlm): FakeRequest[] => l.requests.filter((r) => r.purpose === null);
const validatorRequests = (l: FakeLlm): FakeRequest[] => l.requests.filter((r) => r.purpose === 'validator');
const delegate = (id: string, goal: string): FakeTurn => ({ tool_calls: [{ id, name: 'agent', args: { task_brief: { goal } } }] });
const agentResult = (r: FakeRequest, id: string): TaskReport => {
  const content = r.body.messages.find((m) => m.role === 'tool' && m.tool_call_id === id)?.content;
  return JSON.parse(typeof content === 'string' ? content : 'null') as TaskReport;
};

describe('Validator', () => {
  it('TREEa/TREEa1: the controller renamed the node, the child claims the requested name: the pre-check fails it, no Validator LLM call', async () => {
    gns3 = await rig('v2');
    gns3.fake.addProject({ name: 'lab' });
    gns3.fake.addNode({ name: 'TREEa', node_type: 'vpcs', x: 0, y: 0 });
    const project = await gns3.client.openProject('lab');
    llm = await startLlm([
      delegate('a', 'create a VPCS node named TREEa'),
      { tool_calls: [{ id: 'c1', name: 'create_gns3_node', args: { nodes: [{ template: 'VPCS', name: 'TREEa' }] } }] },
      { text: 'Created TREEa.' },
      review('a', 'replan', { note: 'the node is TREEa1' }),
      { text: 'root done' },
    ]);
    const settings = testSettings(llm.url, tmp.dir, { server: gns3.fake.url, mode: 'lab_automation_assistant' });
    const s = await session(settings, gns3Tools, { env, projectScope: async () => project });
    const ev = await collect(s.send('make TREEa'));
    expect(validatorRequests(llm)).toHaveLength(0);
    const report = agentResult(chat(llm)[3]!, 'a');
    // the evidence lists the node the call touched and the name the controller returned
    expect(report.evidence[0]).toMatchObject({
      tool: 'create_gns3_node',
      devices: ['TREEa', 'TREEa1'],
      renamed: [{ requested: 'TREEa', name: 'TREEa1' }],
    });
    expect(report.validation).toMatchObject({ verdict: 'fail', deterministic: true });
    expect(report.validation!.checks[0]).toMatchObject({ claim: 'the result names TREEa', ok: false });
    expect(report.validation!.checks[0]!.evidence).toContain('the controller named it TREEa1');
    // the child's validation (the root's answer has its own, without an agent_id)
    const v = ofType(ev, 'validation').filter((e) => e.agent_id);
    expect(v).toHaveLength(1);
    expect(v[0]).toMatchObject({ verdict: 'fail', agent_id: s.tree().agents[0]!.id, depth: 1 });
    expect(s.treeView().agents[0]).toMatchObject({ validation: { verdict: 'fail' } });
    await s.close();
  });

  it('re-checks with a read-only tool of the child set; a forged config call is refused before it runs; the verdict is structured', async () => {
    llm = await startLlm(
      [
        delegate('a', 'check OSPF on R1'),
        { tool_calls: [showCall('R1', 's1')] },
        { text: 'R1: OSPF neighbours Full' },
        review('a', 'replan'),
        { text: 'root done' },
      ],
      {
        validator: [
          { tool_calls: [showCall('R1', 'v1')] },
          {
            tool_calls: [
              {
                id: 'forged',
                name: 'execute_multiple_device_config_commands',
                args: { device_configs: [{ device_name: 'R1', config_commands: ['router ospf 1'] }] },
              },
            ],
          },
          {
            text: JSON.stringify({
              verdict: 'fail',
              checks: [{ claim: 'OSPF Full on R1', ok: false, evidence: 'v1: one neighbour Down' }],
              summary: 'a neighbour is down',
            }),
          },
        ],
      },
    );
    const log: ToolLog = { calls: [] };
    const s = await session(testSettings(llm.url, tmp.dir, { approve: 'all', mode: 'lab_automation_assistant' }), testTools(log), { env });
    const ev = await collect(s.send('ospf'));
    const vreqs = validatorRequests(llm);
    expect(vreqs).toHaveLength(3);
    // the Validator sees the trajectory, not the child's conversation, and only read-only tools
    expect(String(vreqs[0]!.body.messages[1]!.content)).toContain('"id": "s1"');
    expect((vreqs[0]!.body.tools ?? []).map((t) => t.function.name)).toEqual(['get_gns3_templates', 'execute_multiple_device_commands']);
    expect(log.calls.map((c) => c.name)).toEqual(['execute_multiple_device_commands', 'execute_multiple_device_commands']);
    const forged = ofType(ev, 'tool_end').find((e) => e.id === 'forged')!;
    expect(forged).toMatchObject({ status: 'blocked', code: 'not_available', depth: 1 });
    const report = agentResult(chat(llm)[3]!, 'a');
    expect(report.validation).toEqual({
      verdict: 'fail',
      checks: [{ claim: 'OSPF Full on R1', ok: false, evidence: 'v1: one neighbour Down' }],
      summary: 'a neighbour is down',
    });
    // Validator calls are booked in the tree budget: root 3 + child 2 + Validator 3 + the root Validator + the title
    expect(s.usage()!.llm_calls).toBe(10);
    await s.close();
  });

  describe("the pre-check 'a device no call touched' knows the devices by the project's nodes", () => {
    /** A project with R1 and R2 on the fake controller; the child checks R1 (naming it `asked`) and reports `result`. */
    async function childReports(result: string, asked = 'R1') {
      gns3 = await rig('v2');
      gns3.fake.addProject({ name: 'lab' });
      for (const [name, x] of [
        ['R1', 0],
        ['R2', 100],
      ] as const)
        gns3.fake.addNode({ name, node_type: 'vpcs', x, y: 0 });
      const project = await gns3.client.openProject('lab');
      llm = await startLlm([
        delegate('a', 'check the routing of R1'),
        { tool_calls: [showCall(asked, 's1')] },
        { text: result },
        review('a'),
        { text: 'root done' },
      ]);
      const s = await session(testSettings(llm.url, tmp.dir), testTools({ calls: [] }), { env, projectScope: async () => project });
      await collect(s.send('check R1'));
      await s.close();
      return { report: agentResult(chat(llm)[3]!, 'a'), validator: validatorRequests(llm) };
    }

    it('an honest report with words like T1, SNMPv3 or OSPFv2 goes to the Validator, which passes it', async () => {
      const { report, validator } = await childReports('R1: OSPFv2 neighbour Full over the T1 uplink; SNMPv3 is off, H323 not used.');
      expect(validator).toHaveLength(1);
      expect(report.validation).toMatchObject({ verdict: 'pass' });
      expect(report.validation!.deterministic).toBeUndefined();
    });

    it('a node the call named in another case (the controller matches names so) was touched', async () => {
      const { report, validator } = await childReports('R1: OSPF neighbour Full.', 'r1');
      expect(validator).toHaveLength(1);
      expect(report.validation).toMatchObject({ verdict: 'pass' });
    });

    it("a report on a node of the project that no call touched fails without the Validator's LLM call", async () => {
      const { report, validator } = await childReports('R1 and R2: OSPF neighbours Full.');
      expect(validator).toHaveLength(0);
      expect(report.validation).toMatchObject({ verdict: 'fail', deterministic: true });
      expect(report.validation!.checks).toEqual([
        { claim: 'the result reports on R2', ok: false, evidence: 'no tool call touched R2 (touched: R1)' },
      ]);
    });
  });

  it('a malformed or contradictory Validator answer is uncertain, never pass', () => {
    expect(parseValidation('looks fine to me').verdict).toBe('uncertain');
    expect(parseValidation('{"verdict":"great"}').verdict).toBe('uncertain');
    expect(parseValidation('{"verdict":"pass","checks":[{"claim":"x","ok":false,"evidence":"y"}],"summary":""}').verdict).toBe('uncertain');
    expect(parseValidation('```json\n{"verdict":"pass","checks":[],"summary":"ok"}\n```').verdict).toBe('pass');
  });
});

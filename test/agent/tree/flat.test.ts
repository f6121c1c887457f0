/** Legacy sub-agents: the `agent` tool through the real graph, real SQLite, fake LLM over HTTP. */
import { describe, expect, it } from 'vitest';
import { type FakeLlm, type FakeRequest } from '../../fakes/llm/server.js';
import { collect, ofType, session, showCall, useFakeLlm, testSettings, testTools, text, type ToolLog } from '../helpers.js';
import { timedShowTool, toolNames } from './helpers.js';

const { tmp, startLlm } = useFakeLlm('gc-tree-flat-');
let llm: FakeLlm | undefined;
const chat = (l: FakeLlm): FakeRequest[] => l.requests.filter((r) => r.purpose === null);

describe('flat agent tool', () => {
  it('one child: own thread, no `agent` tool, its summary is the tool result; events carry agent_id/depth', async () => {
    llm = await startLlm([
      { text: 'ROOT-THOUGHT delegating', tool_calls: [{ id: 'a1', name: 'agent', args: { task: 'check routes on R1' } }] },
      { tool_calls: [showCall('R1', 's1')] },
      { text: 'R1 has 3 OSPF routes.' },
      { text: 'The sub-agent says R1 has 3 OSPF routes.' },
    ]);
    const log: ToolLog = { calls: [] };
    const s = await session(testSettings(llm.url, tmp.dir), testTools(log));
    const ev = await collect(s.send('check R1 please'));
    const reqs = chat(llm);
    expect(reqs).toHaveLength(4);
    expect(toolNames(reqs[0]!)).toContain('agent');
    // the child: system + its task only, no `agent`, none of the parent's history
    expect(toolNames(reqs[1]!)).not.toContain('agent');
    expect(toolNames(reqs[1]!)).toContain('execute_multiple_device_commands');
    expect(reqs[1]!.body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(JSON.stringify(reqs[1]!.body.messages)).toContain('check routes on R1');
    expect(JSON.stringify(reqs[1]!.body.messages)).not.toContain('ROOT-THOUGHT');
    // the root reads the child's summary as the agent tool result
    const toolMsg = reqs[3]!.body.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'a1')!;
    expect(String(toolMsg.content)).toContain('R1 has 3 OSPF routes.');
    expect(log.calls.map((c) => c.name)).toEqual(['execute_multiple_device_commands']);
    const childEnd = ofType(ev, 'tool_end').find((e) => e.id === 's1')!;
    expect(childEnd.depth).toBe(1);
    expect(childEnd.agent_id).toMatch(/[0-9a-f-]{36}/);
    const rootEnd = ofType(ev, 'tool_end').find((e) => e.id === 'a1')!;
    expect(rootEnd.status).toBe('success');
    expect(rootEnd.agent_id).toBeUndefined();
    // child text is not part of the root's answer
    expect(text(ev)).toBe('ROOT-THOUGHT delegatingThe sub-agent says R1 has 3 OSPF routes.');
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('done');
    const t = s.tree();
    expect(t.root).toMatchObject({ agent_mode: 'flat', depth: 0, root_id: s.id });
    expect(t.agents).toHaveLength(1);
    expect(t.agents[0]).toMatchObject({ parent_id: s.id, depth: 1, status: 'completed', llm_calls: 2 });
    expect(JSON.parse(t.agents[0]!.tools)).not.toContain('agent');
    // children are not sessions of their own
    expect(s.info()!.title).toBeTruthy();
    await s.close();
  });

  it('a batch (`messages`) runs its children in parallel and joins results in input order', async () => {
    llm = await startLlm([
      { tool_calls: [{ id: 'a1', name: 'agent', args: { messages: ['TASK-ALPHA on R1', 'TASK-BETA on R2'] } }] },
      { when: 'TASK-ALPHA', tool_calls: [showCall('R1', 'sa')] },
      { when: 'TASK-BETA', tool_calls: [showCall('R2', 'sb')] },
      { when: '"sa"', text: 'alpha summary' },
      { when: '"sb"', text: 'beta summary' },
      { text: 'both done' },
    ]);
    const spans: { device: string; start: number; end: number }[] = [];
    const s = await session(testSettings(llm.url, tmp.dir), [timedShowTool(spans, {}, { R1: 'R2' })]);
    const ev = await collect(s.send('check both'));
    expect(spans).toHaveLength(2);
    const [a, b] = ['R1', 'R2'].map((d) => spans.find((x) => x.device === d)!);
    expect(a!.start < b!.end && b!.start < a!.end).toBe(true); // overlapped
    expect(b!.end).toBeLessThan(a!.end); // R2 finished first…
    const result = ofType(ev, 'tool_end').find((e) => e.id === 'a1')!.output;
    expect(result.indexOf('alpha summary')).toBeLessThan(result.indexOf('beta summary')); // …results still in input order
    expect(s.tree().agents.map((n) => n.status)).toEqual(['completed', 'completed']);
    await s.close();
  });

  it('a forged `agent` call in a depth-1 child is blocked at dispatch', async () => {
    llm = await startLlm([
      { tool_calls: [{ id: 'a1', name: 'agent', args: { task: 'nested' } }] },
      { tool_calls: [{ id: 'forged', name: 'agent', args: { task: 'deeper' } }] },
      { text: 'could not delegate' },
      { text: 'ok' },
    ]);
    const s = await session(testSettings(llm.url, tmp.dir), testTools({ calls: [] }));
    const ev = await collect(s.send('go'));
    const forged = ofType(ev, 'tool_end').find((e) => e.id === 'forged')!;
    expect(forged).toMatchObject({ status: 'blocked', code: 'not_available', depth: 1 });
    expect(chat(llm)).toHaveLength(4);
    expect(s.tree().agents).toHaveLength(1);
    await s.close();
  });
});

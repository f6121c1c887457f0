/**
 * The parent review gate and continue_from (recursive trees): a parent with validated,
 * unreviewed reports sees only review_task and its read-only tools; its answer is held
 * until it reviews; revise continues the same child without a new slot; replan/split
 * release the gate. Real graph, real SQLite, fake LLM over HTTP.
 */
import { describe, expect, it } from 'vitest';
import type { FakeLlm, FakeRequest, FakeTurn } from '../../fakes/llm/server.js';
import { collect, ofType, session, showCall, useFakeLlm, testSettings, testTools, type ToolLog } from '../helpers.js';
import { review, toolNames } from './helpers.js';
import type { TaskReport } from '../../../src/agent/tree/report.js';
import type { AgentEvent } from '../../../src/core/events.js';

const { tmp, startLlm } = useFakeLlm('gc-tree-review-');
let llm: FakeLlm | undefined;
const env = { AGENT_MODE: 'recursive' };
const chat = (l: FakeLlm): FakeRequest[] => l.requests.filter((r) => r.purpose === null);
const delegate = (id: string, b: unknown, extra: Record<string, unknown> = {}): FakeTurn => ({
  tool_calls: [{ id, name: 'agent', args: { task_brief: b, ...extra } }],
});
const toolResult = (r: FakeRequest, id: string): string => {
  const content = r.body.messages.find((m) => m.role === 'tool' && m.tool_call_id === id)?.content;
  return typeof content === 'string' ? content : '';
};
const lastUser = (r: FakeRequest): string => {
  const c = [...r.body.messages].reverse().find((m) => m.role === 'user')?.content;
  return typeof c === 'string' ? c : JSON.stringify(c ?? '');
};

describe('parent review gate', () => {
  it('holds an answer before review_task, narrows the tools, blocks a forged config call; the decision is stored', async () => {
    llm = await startLlm([
      delegate('a', { goal: 'check R1' }),
      { tool_calls: [showCall('R1', 's1')] },
      { text: 'R1 fine' },
      // the root answers at once: held, it has not reviewed
      { text: 'EARLY ANSWER' },
      // a config call while the review is pending: blocked at dispatch
      {
        tool_calls: [
          {
            id: 'cfg',
            name: 'execute_multiple_device_config_commands',
            args: { device_configs: [{ device_name: 'R1', config_commands: ['x'] }] },
          },
        ],
      },
      review('a', 'accept', { note: 'R1 checked' }),
      { text: 'final answer' },
    ]);
    const log: ToolLog = { calls: [] };
    const s = await session(testSettings(llm.url, tmp.dir, { approve: 'all', mode: 'lab_automation_assistant' }), testTools(log), { env });
    const ev = await collect(s.send('check R1'));
    const reqs = chat(llm);
    expect(reqs).toHaveLength(7);
    // before any report, the root has agent and no review_task
    expect(toolNames(reqs[0]!)).toContain('agent');
    expect(toolNames(reqs[0]!)).not.toContain('review_task');
    // with a report awaiting review: review_task and the read-only tools, nothing else
    expect(toolNames(reqs[3]!).sort()).toEqual([
      'execute_multiple_device_commands',
      'get_gns3_templates',
      'read_context_ref',
      'review_task',
    ]);
    const childId = s.tree().agents[0]!.id;
    // the held answer: the model is told which reports await review
    expect(lastUser(reqs[4]!)).toContain(`await your review: ${childId}`);
    expect(ofType(ev, 'tool_end').find((e) => e.id === 'cfg')).toMatchObject({ status: 'blocked', code: 'not_available' });
    expect(ofType(ev, 'tool_end').find((e) => e.id === 'cfg')!.output).toMatch(/await your review .*review_task/);
    expect(log.calls.map((c) => c.name)).toEqual(['execute_multiple_device_commands']);
    // after the review the gate is gone
    expect(toolNames(reqs[6]!)).toContain('agent');
    expect(toolNames(reqs[6]!)).not.toContain('review_task');
    expect(ofType(ev, 'review')).toEqual([
      expect.objectContaining({ agent_id: childId, depth: 1, decision: 'accept', note: 'R1 checked' }),
    ]);
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('done');
    expect(s.treeView().agents[0]).toMatchObject({ review: { decision: 'accept', note: 'R1 checked' } });
    const stored = s.tree().agents[0]!;
    expect(stored.review).toBe('accept');
    await s.close();
  });

  it('a model that never reviews ends at max_iterations (the held answer is bounded)', async () => {
    llm = await startLlm([
      delegate('a', { goal: 'check R1' }),
      { text: 'R1 fine' },
      { text: 'answer 1' },
      { text: 'answer 2' },
      { text: 'answer 3' },
    ]);
    const s = await session(testSettings(llm.url, tmp.dir, { max_iterations: 3 }), testTools({ calls: [] }), { env });
    const ev = await collect(s.send('check R1'));
    // root: delegate, a held answer, then its last iteration (no tools) answers
    expect(chat(llm)).toHaveLength(4);
    expect(chat(llm)[3]!.body.tools ?? []).toEqual([]);
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('max_iterations');
    expect(s.tree().agents[0]!.review).toBe('pending');
    await s.close();
  });

  it('revise continues the same child without a new slot (after 6 children); continue_from checks the brief and the parent; split delegates', async () => {
    const six = Array.from({ length: 6 }, (_, i) => ({ goal: `CHILD-${i} check R${i}` }));
    llm = await startLlm([
      delegate('b6', six),
      ...six.map((_, i) => ({ when: `CHILD-${i} check R${i}`, text: `report ${i}` })),
      // accept five, revise the first
      {
        tool_calls: [
          ...[1, 2, 3, 4, 5].map((i) => ({
            id: `acc${i}`,
            name: 'review_task',
            args: { agent_id: `{{agent_id:b6#${i}}}`, decision: 'accept' },
          })),
          { id: 'rev0', name: 'review_task', args: { agent_id: '{{agent_id:b6#0}}', decision: 'revise', note: 'ADD-THE-ROUTES of R0' } },
        ],
      },
      // the continued child: its own history plus the note
      { when: 'ADD-THE-ROUTES', tool_calls: [showCall('R0', 'c0')] },
      { when: 'ADD-THE-ROUTES', text: 'report 0 with routes' },
      review('rev0', 'accept'),
      // a 7th new child is refused (quota), a different goal under continue_from is refused, the original goal continues
      delegate('new7', { goal: 'one more' }),
      delegate('wrong', { goal: 'something else' }, { continue_from: '{{agent_id:b6#1}}' }),
      delegate('cont1', { goal: 'child-1 check r1.' }, { continue_from: '{{agent_id:b6#1}}' }),
      { when: 'go on from where you stopped', text: 'report 1 again' },
      review('cont1', 'split', { note: 'two parts' }),
      // split released the gate: new briefs may be delegated (here refused only by the quota)
      delegate('after', { goal: 'part A' }),
      { text: 'root done' },
    ]);
    const log: ToolLog = { calls: [] };
    const s = await session(testSettings(llm.url, tmp.dir), testTools(log), { env });
    const ev = await collect(s.send('six routers'));
    const reqs = chat(llm);
    const agents = s.tree().agents;
    expect(agents).toHaveLength(6);
    const first = agents.find((a) => a.goal.startsWith('CHILD-0'))!;
    // the continuation ran on the child's own thread: its first brief, its first answer, then the note
    const cont = reqs.find((r) => lastUser(r).includes('ADD-THE-ROUTES'))!;
    expect(cont.body.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(String(cont.body.messages[1]!.content)).toContain('CHILD-0 check R0');
    const revised = ofType(ev, 'tool_end').find((e) => e.id === 'rev0')!;
    const report = JSON.parse(revised.output) as TaskReport;
    expect(report).toMatchObject({ agent_id: first.id, result: 'report 0 with routes', validation: { verdict: 'pass' } });
    expect(report.evidence.map((e) => e.tool_call_id)).toEqual(['c0']);
    expect(
      toolResult(
        reqs.find((r) => toolResult(r, 'new7'))!,
        'new7',
      ),
    ).toMatch(/\(6 started, 1 requested\)/);
    expect(
      toolResult(
        reqs.find((r) => toolResult(r, 'wrong'))!,
        'wrong',
      ),
    ).toMatch(/not the original task .*use a new child/);
    const again = JSON.parse(
      toolResult(
        reqs.find((r) => toolResult(r, 'cont1'))!,
        'cont1',
      ),
    ) as TaskReport;
    expect(again).toMatchObject({ agent_id: agents.find((a) => a.goal.startsWith('CHILD-1'))!.id, result: 'report 1 again' });
    expect(
      toolResult(
        reqs.find((r) => toolResult(r, 'after'))!,
        'after',
      ),
    ).toMatch(/\(6 started, 1 requested\)/);
    // no new agent was taken from the budget: root + 6
    expect(s.usage()!.agents).toBe(7);
    expect(first.review).toBe('accept');
    expect(ofType(ev, 'review').map((r) => r.decision)).toEqual([
      'accept',
      'accept',
      'accept',
      'accept',
      'accept',
      'revise',
      'accept',
      'split',
    ]);
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('done');
    await s.close();
  });

  it('split releases the gate: the parent delegates the new briefs and reviews their reports', async () => {
    llm = await startLlm([
      delegate('a', { goal: 'check R1 and R2' }),
      { when: 'check R1 and R2', text: 'too much at once' },
      review('a', 'split', { note: 'one router each' }),
      delegate('parts', [{ goal: 'PART-R1' }, { goal: 'PART-R2' }]),
      { when: 'PART-R1', tool_calls: [showCall('R1', 'p1')] },
      { when: '"p1"', text: 'R1 fine' },
      { when: 'PART-R2', tool_calls: [showCall('R2', 'p2')] },
      { when: '"p2"', text: 'R2 fine' },
      review('parts', 'accept', { n: 2 }),
      { text: 'both fine' },
    ]);
    const log: ToolLog = { calls: [] };
    const s = await session(testSettings(llm.url, tmp.dir), testTools(log), { env });
    const ev = await collect(s.send('routers'));
    expect(s.tree().agents.map((a) => [a.goal, a.review])).toEqual([
      ['check R1 and R2', 'split'],
      ['PART-R1', 'accept'],
      ['PART-R2', 'accept'],
    ]);
    expect(log.calls).toHaveLength(2);
    expect(ofType(ev, 'review').map((r) => r.decision)).toEqual(['split', 'accept', 'accept']);
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('done');
    await s.close();
  });

  it("continue_from refuses a child still running and another parent's child", async () => {
    llm = await startLlm([
      delegate('a', { goal: 'ALPHA' }),
      { when: 'ALPHA', text: 'alpha report' },
      review('a', 'replan'),
      // two continuations of one child in one response: the second finds it running
      {
        tool_calls: ['c1', 'c2'].map((id) => ({
          id,
          name: 'agent',
          args: { task_brief: { goal: 'ALPHA' }, continue_from: '{{agent_id:a}}' },
        })),
      },
      { when: 'go on from where you stopped', delay_ms: 200, text: 'alpha again' },
      { tool_calls: [{ id: 'rv2', name: 'review_task', args: { agent_id: '{{agent_id:a}}', decision: 'accept' } }] },
      // a grandchild is not the root's to continue
      delegate('top', { goal: 'MIDDLE' }),
      { when: 'You are sub-agent', tool_calls: [{ id: 'g', name: 'agent', args: { task_brief: { goal: 'GRAND' } } }] },
      { when: 'GRAND', text: 'grand report' },
      { when: '"g"', ...review('g') },
      { when: '"rv_g_0"', text: 'middle report' },
      review('top', 'replan'),
    ]);
    const s = await session(testSettings(llm.url, tmp.dir), testTools({ calls: [] }), { env });
    const ev: AgentEvent[] = [];
    for await (const e of s.send('nest')) {
      ev.push(e);
      // the grandchild exists now: the root tries to continue it
      if (e.type === 'tool_end' && e.id === 'g') {
        const grand = s.tree().agents.find((a) => a.goal === 'GRAND')!.id;
        llm.push(
          { tool_calls: [{ id: 'gc', name: 'agent', args: { task_brief: { goal: 'GRAND' }, continue_from: grand } }] },
          { text: 'root done' },
        );
      }
    }
    const out = (id: string) => ofType(ev, 'tool_end').find((e) => e.id === id)!.output;
    const both = [out('c1'), out('c2')];
    expect(both.filter((o) => /is still running; wait for its report/.test(o))).toHaveLength(1);
    expect(both.filter((o) => o.includes('alpha again'))).toHaveLength(1);
    expect(out('gc')).toMatch(/is not one of yours/);
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('done');
    await s.close();
  });
});

/** Recursive sub-agents: depth, quota, frozen tool sets, context inheritance, TaskReport, scheduling, stop. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeLlm, type FakeRequest, type FakeTurn } from '../../fakes/llm/server.js';
import { collect, ofType, session, showCall, useFakeLlm, testSettings, testTools, type ToolLog } from '../helpers.js';
import { review, timedShowTool, toolNames } from './helpers.js';
import { validateSetting } from '../../../src/config/validate.js';
import type { AgentEvent } from '../../../src/core/events.js';
import type { TaskReport } from '../../../src/agent/tree/report.js';

const { tmp, startLlm } = useFakeLlm('gc-tree-rec-');
let llm: FakeLlm | undefined;
const env = { AGENT_MODE: 'recursive' };
const chat = (l: FakeLlm): FakeRequest[] => l.requests.filter((r) => r.purpose === null);
const brief = (goal: string, extra: Record<string, unknown> = {}) => ({ goal, ...extra });
const delegate = (id: string, b: unknown): FakeTurn => ({ tool_calls: [{ id, name: 'agent', args: { task_brief: b } }] });
const toolResult = (r: FakeRequest, id: string): string => {
  const content = r.body.messages.find((m) => m.role === 'tool' && m.tool_call_id === id)?.content;
  return typeof content === 'string' ? content : content == null ? '' : JSON.stringify(content);
};

// Sub-agents and their tool calls all listen to their run's signal at once, by design: Node must
// never print a MaxListenersExceededWarning over the user's terminal for it (this file once did).
const warnings: string[] = [];
const onWarning = (w: Error) => warnings.push(w.name);
beforeAll(() => process.on('warning', onWarning));
afterAll(() => {
  process.off('warning', onWarning);
  expect(warnings).not.toContain('MaxListenersExceededWarning');
});

describe('recursive agent tool', () => {
  it('depth 5 is reached; a forged `agent` call at depth 5 is blocked at dispatch', async () => {
    const script: FakeTurn[] = [delegate('d0', brief('level 1'))];
    for (let d = 1; d <= 4; d++) script.push(delegate(`d${d}`, brief(`level ${d + 1}`)));
    script.push({ tool_calls: [{ id: 'forged', name: 'agent', args: { task_brief: brief('level 6') } }] });
    script.push({ text: 'done at depth 5' });
    // every parent reviews its child's report before it may answer
    for (let d = 4; d >= 1; d--) script.push(review(`d${d}`), { text: `done at depth ${d}` });
    script.push(review('d0'), { text: 'root done' });
    llm = await startLlm(script);
    const s = await session(testSettings(llm.url, tmp.dir), testTools({ calls: [] }), { env });
    const ev = await collect(s.send('go deep'));
    const reqs = chat(llm);
    // requests 0..5 are root, depth 1..5 — only depth 5 lacks `agent`
    for (let d = 0; d <= 4; d++) expect(toolNames(reqs[d]!)).toContain('agent');
    expect(toolNames(reqs[5]!)).not.toContain('agent');
    const forged = ofType(ev, 'tool_end').find((e) => e.id === 'forged')!;
    expect(forged).toMatchObject({ status: 'blocked', depth: 5 });
    expect(s.tree().agents.map((a) => a.depth)).toEqual([1, 2, 3, 4, 5]);
    expect(s.tree().agents.every((a) => a.status === 'completed')).toBe(true);
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('done');
    await s.close();
  });

  it('quota: a batch over 6 is refused whole before any child starts; the 7th child over the lifetime is refused', async () => {
    const seven = Array.from({ length: 7 }, (_, i) => brief(`Q${i}`));
    llm = await startLlm([
      delegate('b7', seven),
      delegate('b6', seven.slice(0, 6)),
      ...Array.from({ length: 6 }, (_, i) => ({ text: `report Q${i}` })),
      review('b6', 'accept', { n: 6 }),
      delegate('b1', brief('Q-late')),
      { text: 'root done' },
    ]);
    const s = await session(testSettings(llm.url, tmp.dir), testTools({ calls: [] }), { env });
    await collect(s.send('many'));
    const reqs = chat(llm);
    expect(reqs).toHaveLength(11);
    expect(toolResult(reqs[1]!, 'b7')).toMatch(/at most 6 sub-agents .*\(0 started, 7 requested\); no sub-agent of this batch was started/);
    const six = JSON.parse(toolResult(reqs[8]!, 'b6')) as TaskReport[];
    expect(six.map((r) => r.result)).toEqual(Array.from({ length: 6 }, (_, i) => `report Q${i}`));
    expect(toolResult(reqs[10]!, 'b1')).toMatch(/\(6 started, 1 requested\)/);
    expect(s.tree().agents).toHaveLength(6);
    await s.close();
  });

  it('a forged config tool in a child of a teaching-mode root is blocked at dispatch and never runs', async () => {
    llm = await startLlm([
      delegate('a', brief('look at R1')),
      {
        tool_calls: [
          {
            id: 'cfg',
            name: 'execute_multiple_device_config_commands',
            args: { device_configs: [{ device_name: 'R1', config_commands: ['no router ospf 1'] }] },
          },
        ],
      },
      { text: 'could not configure' },
      review('a'),
      { text: 'ok' },
    ]);
    const log: ToolLog = { calls: [] };
    const s = await session(testSettings(llm.url, tmp.dir, { approve: 'all' }), testTools(log), { env });
    const ev = await collect(s.send('teach me'));
    expect(toolNames(chat(llm)[1]!)).not.toContain('execute_multiple_device_config_commands');
    expect(ofType(ev, 'tool_end').find((e) => e.id === 'cfg')).toMatchObject({ status: 'blocked', depth: 1 });
    expect(log.calls).toHaveLength(0);
    await s.close();
  });

  it('a child sees only its brief, inherited constraints, the anchor and granted refs; the TaskReport carries evidence', async () => {
    llm = await startLlm([
      { text: 'ROOT-PRIVATE-THOUGHT', tool_calls: [showCall('R1', 'r1'), showCall('R9', 'r9')] },
      delegate('a', brief('check OSPF on R2', { constraints: ['read-only: no config changes'], context_refs: ['r1'] })),
      // depth 1 grants r1 onward (held) and adds a constraint; a ref it does not hold is refused
      delegate('bad', brief('nope', { context_refs: ['r9'] })),
      delegate('g', brief('check R3', { constraints: ['only R3'], context_refs: ['r1'] })),
      { tool_calls: [showCall('R3', 'g3')] },
      { text: 'R3: neighbours full' },
      review('g'),
      { text: 'Result: R2 fine. Evidence: see child.' },
      review('a'),
      { text: 'root answer' },
    ]);
    const s = await session(testSettings(llm.url, tmp.dir), [timedShowTool([])], { env });
    await collect(s.send('Verify OSPF everywhere'));
    const reqs = chat(llm);
    const child = reqs[2]!;
    expect(child.body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    const seen = String(child.body.messages[1]!.content);
    expect(seen).toContain('check OSPF on R2');
    expect(seen).toContain('- read-only: no config changes');
    expect(seen).toContain('Verify OSPF everywhere'); // the anchor
    expect(seen).toMatch(/\[r1\] \(execute_multiple_device_commands, \d+ chars\): /);
    expect(seen).toContain('routes of R1');
    expect(seen).not.toContain('ROOT-PRIVATE-THOUGHT');
    expect(seen).not.toContain('R9');
    expect((JSON.parse(toolResult(reqs[3]!, 'bad')) as { error: string }).error).toMatch(
      /context_ref "r9" is not a tool result or context ref you hold/,
    );
    const grand = String(reqs[4]!.body.messages[1]!.content);
    expect(grand).toContain('- read-only: no config changes\n- only R3'); // inherited first
    expect(grand).toContain('routes of R1'); // re-granted edge by edge
    expect(reqs[4]!.body.messages).toHaveLength(2);
    const g = JSON.parse(toolResult(reqs[6]!, 'g')) as TaskReport;
    expect(g).toMatchObject({ depth: 2, status: 'completed', result: 'R3: neighbours full', open_issues: [] });
    expect(g.evidence).toEqual([{ tool_call_id: 'g3', tool: 'execute_multiple_device_commands', devices: ['R3'], status: 'success' }]);
    const a = JSON.parse(toolResult(reqs[8]!, 'a')) as TaskReport;
    expect(a.evidence.map((e) => e.tool)).toEqual(['agent', 'agent', 'review_task']);
    expect(a.evidence[0]!.status).toBe('error');
    await s.close();
  });
});

describe('scheduling and stop', () => {
  const batchOf = (delays: Record<string, number>, hold: Record<string, string> = {}) => {
    const spans: { device: string; start: number; end: number }[] = [];
    const turns: FakeTurn[] = [
      delegate('b', [brief('CHILD-A on RA'), brief('CHILD-B on RB')]),
      { when: 'CHILD-A', tool_calls: [showCall('RA', 'ta')] },
      { when: 'CHILD-B', tool_calls: [showCall('RB', 'tb')] },
      { when: '"ta"', text: 'report A' },
      { when: '"tb"', text: 'report B' },
      review('b', 'accept', { n: 2 }),
      { text: 'root done' },
    ];
    return { spans, turns, tool: timedShowTool(spans, delays, hold) };
  };

  it('sequential by default: the second child starts after the first ended', async () => {
    const b = batchOf({ RA: 80, RB: 10 });
    llm = await startLlm(b.turns);
    const s = await session(testSettings(llm.url, tmp.dir), [b.tool], { env });
    await collect(s.send('both'));
    const [a, bb] = ['RA', 'RB'].map((d) => b.spans.find((x) => x.device === d)!);
    expect(a!.end).toBeLessThanOrEqual(bb!.start);
    await s.close();
  });

  it('parallel 2 overlaps and keeps input order; 3 is rejected by validation', async () => {
    expect(() => validateSetting('max_parallel_children', 3, 'GNS3_COPILOT_MAX_PARALLEL_CHILDREN')).toThrow(
      /must be an integer 1\.\.2 \(got 3\)/,
    );
    const b = batchOf({}, { RA: 'RB' });
    llm = await startLlm(b.turns);
    const s = await session(testSettings(llm.url, tmp.dir, { child_execution_mode: 'parallel', max_parallel_children: 2 }), [b.tool], {
      env,
    });
    const ev = await collect(s.send('both'));
    const [a, bb] = ['RA', 'RB'].map((d) => b.spans.find((x) => x.device === d)!);
    expect(a!.start < bb!.end && bb!.start < a!.end).toBe(true);
    expect(bb!.end).toBeLessThan(a!.end);
    const reports = JSON.parse(ofType(ev, 'tool_end').find((e) => e.id === 'b')!.output) as TaskReport[];
    expect(reports.map((r) => r.result)).toEqual(['report A', 'report B']);
    await s.close();
  });

  it('a user abort of the root stops every descendant; the history stays valid and resumable', async () => {
    llm = await startLlm([delegate('top', brief('SLOW child')), { tool_calls: [showCall('RSLOW', 'slow')] }]);
    const spans: { device: string; start: number; end: number }[] = [];
    const settings = testSettings(llm.url, tmp.dir);
    const s = await session(settings, [timedShowTool(spans, { RSLOW: 5000 })], { env });
    const ac = new AbortController();
    const ev: AgentEvent[] = [];
    for await (const e of s.send('abort me', { signal: ac.signal })) {
      ev.push(e);
      if (e.type === 'tool_start' && e.id === 'slow') ac.abort();
    }
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('aborted');
    expect(ofType(ev, 'error')[0]!.error.type).toBe('aborted');
    expect(spans[0]!.end - spans[0]!.start).toBeLessThan(4000);
    expect(s.tree().agents.map((a) => a.status)).toEqual(['stopped']);
    // the stopped child's report awaits the root's review on resume too
    const stoppedId = s.tree().agents[0]!.id;
    await s.close();
    llm.push(
      { tool_calls: [{ id: 'rv', name: 'review_task', args: { agent_id: stoppedId, decision: 'accept', note: '' } }] },
      { text: 'after resume' },
    );
    const again = await session(settings, [timedShowTool(spans)], { sessionId: s.id, env: {} });
    const ev2 = await collect(again.send('go on'));
    expect(ofType(ev2, 'done')[0]!.stopped_reason).toBe('done');
    const last = chat(llm)[chat(llm).length - 1]!;
    expect(last.body.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'top')).toBeDefined();
    await again.close();
  });

  it('stopping a middle node stops its subtree (a queued child never calls the LLM), not its sibling or the root', async () => {
    llm = await startLlm([
      delegate('top', [brief('MIDDLE node'), brief('SIBLING node')]),
      delegate('mid', [brief('GRAND-ONE'), brief('GRAND-TWO')]),
      { when: 'GRAND-ONE', tool_calls: [showCall('RSLOW', 'slow')] },
      { when: 'GRAND-ONE', text: 'never' },
      { when: 'MIDDLE', text: 'never' },
      { when: 'SIBLING', text: 'sibling report' },
      review('top', 'accept', { n: 2 }),
      { text: 'root answer with what it has' },
    ]);
    const spans: { device: string; start: number; end: number }[] = [];
    const s = await session(testSettings(llm.url, tmp.dir), [timedShowTool(spans, { RSLOW: 5000 })], { env });
    const ev: AgentEvent[] = [];
    let middle: string | undefined;
    for await (const e of s.send('tree')) {
      ev.push(e);
      if (e.type === 'tool_call' && e.id === 'mid') middle = e.agent_id;
      if (e.type === 'tool_start' && e.id === 'slow') expect(s.stopAgent(middle!)).toEqual({ stopped: middle });
    }
    const reqs = chat(llm);
    const startedWith = (goal: string) => reqs.some((r) => String(r.body.messages[1]?.content).includes(`## Goal\n${goal}`));
    expect(startedWith('GRAND-ONE')).toBe(true);
    expect(startedWith('GRAND-TWO')).toBe(false);
    expect(startedWith('SIBLING node')).toBe(true);
    expect(spans[0]!.end - spans[0]!.start).toBeLessThan(4000);
    const top = JSON.parse(ofType(ev, 'tool_end').find((e) => e.id === 'top')!.output) as TaskReport[];
    expect(top.map((r) => r.status)).toEqual(['stopped', 'completed']);
    // one child stopped, one completed: the call did part of its work
    expect(ofType(ev, 'tool_end').find((e) => e.id === 'top')).toMatchObject({
      status: 'partial',
      display: '1 of 2 sub-agents did not complete: stopped (aborted)',
    });
    // the middle node was itself stopped, so its own `agent` call ends aborted
    expect(ofType(ev, 'tool_end').find((e) => e.id === 'mid')!.status).toBe('aborted');
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('done');
    const byGoal = Object.fromEntries(s.tree().agents.map((a) => [a.goal, a.status]));
    expect(byGoal).toEqual({ 'MIDDLE node': 'stopped', 'SIBLING node': 'completed', 'GRAND-ONE': 'stopped', 'GRAND-TWO': 'stopped' });
    await s.close();
  });
});

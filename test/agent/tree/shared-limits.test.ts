/**
 * One request, one set of counters: the root and every sub-agent count against the same
 * tool-call, per-tool and group limits, in both agent modes (real graph, real SQLite,
 * fake LLM over HTTP). `stats` reports the request's totals and `by_agent` adds up to them.
 */
import { describe, expect, it } from 'vitest';
import type { FakeLlm, FakeRequest, FakeTurn } from '../../fakes/llm/server.js';
import { collect, ofType, session, showCall, useFakeLlm, testSettings, testTools, type ToolLog } from '../helpers.js';
import type { AgentEvent, AgentStats } from '../../../src/core/events.js';

const { tmp, startLlm } = useFakeLlm('gc-tree-shared-');
let llm: FakeLlm | undefined;
const chat = (l: FakeLlm): FakeRequest[] => l.requests.filter((r) => r.purpose === null);
const TASKS = ['TASK-ALPHA', 'TASK-BETA', 'TASK-GAMMA'];

/** Each child tries one show call on its own device, then answers (in its wrap-up when the call was refused). */
const childTurns = (): FakeTurn[] =>
  TASKS.flatMap((t, i) => [
    { when: t, tool_calls: [showCall(`R${i + 1}`, `c${i}`)] },
    { when: t, text: `${t} answered` },
  ]);

function script(mode: 'flat' | 'recursive'): FakeTurn[] {
  const args = mode === 'flat' ? { messages: TASKS } : { task_brief: TASKS.map((goal) => ({ goal })) };
  return [
    { text: 'ROOT-DELEGATES', tool_calls: [{ id: 'a1', name: 'agent', args }] },
    ...childTurns(),
    // a recursive root reviews the three reports before it may answer
    ...(mode === 'recursive' ? [{ when: 'ROOT-DELEGATES', tool_calls: TASKS.map((_, i) => reviewCall(i)) }] : []),
    { when: 'ROOT-DELEGATES', text: 'root answer' },
  ];
}

const reviewCall = (i: number) => ({ id: `rv${i}`, name: 'review_task', args: { agent_id: `{{agent_id:a1#${i}}}`, decision: 'accept' } });

const sum = (by: Record<string, AgentStats>, k: keyof AgentStats) => Object.values(by).reduce((n, a) => n + a[k], 0);

async function runTree(mode: 'flat' | 'recursive', settings: Record<string, unknown>) {
  llm = await startLlm(script(mode));
  const log: ToolLog = { calls: [] };
  const s = await session(testSettings(llm.url, tmp.dir, settings), testTools(log), {
    env: mode === 'recursive' ? { AGENT_MODE: 'recursive' } : {},
  });
  const ev: AgentEvent[] = await collect(s.send('check three routers'));
  return { s, ev, log };
}

describe('limits shared by the whole request', () => {
  for (const mode of ['flat', 'recursive'] as const)
    it(`${mode}: a batch of 3 children under --max-tool-calls 2 runs exactly 2 tool calls in total (the agent call and one child call)`, async () => {
      const { s, ev, log } = await runTree(mode, { max_tool_calls: 2 });
      expect(log.calls).toHaveLength(1);
      const childEnds = ofType(ev, 'tool_end').filter((e) => e.depth === 1);
      expect(childEnds.map((e) => e.status).sort()).toEqual(['limit', 'limit', 'success']);
      for (const e of childEnds.filter((x) => x.status === 'limit')) expect(e.output).toContain('Tool call limit reached (2/2)');
      const done = ofType(ev, 'done')[0]!;
      // recursive: the root's three review_task calls run too, outside the limits (protocol tools are never counted)
      const reviews = mode === 'recursive' ? 3 : 0;
      expect(done.stats.tool_calls).toBe(2 + reviews);
      // the root: its call (its reviews) and its answer; each child: its call and its answer
      expect(done.stats.by_kind!.agent.llm_calls).toBe(chat(llm!).length);
      expect(done.stats.by_kind!.agent.llm_calls).toBe(8 + (reviews ? 1 : 0));
      // every call of the request counts: the title and the Validators too
      expect(done.stats.llm_calls).toBe(llm!.requests.length);
      expect(done.stats.iterations).toBe(2 + (reviews ? 1 : 0));
      const by = done.stats.by_agent!;
      expect(Object.keys(by)).toHaveLength(4);
      const { title, root_validator } = done.stats.by_kind!;
      expect(by.root).toMatchObject({
        llm_calls: 2 + (reviews ? 1 : 0) + title.llm_calls + root_validator.llm_calls,
        tool_calls: 1 + reviews,
      });
      for (const k of ['llm_calls', 'tool_calls', 'input_tokens', 'output_tokens'] as const) expect(sum(by, k)).toBe(done.stats[k]);
      expect(
        Object.keys(by)
          .filter((k) => k !== 'root')
          .sort(),
      ).toEqual(
        s
          .tree()
          .agents.map((a) => a.id)
          .sort(),
      );
      await s.close();
    });

  for (const [name, settings, message] of [
    [
      'a per-tool cap',
      { tool_limits: { execute_multiple_device_commands: 1 } },
      'Tool call limit reached for execute_multiple_device_commands (1/1',
    ],
    ['the diagnostic group cap', { max_diagnostic_calls: 1 }, 'Diagnostic call limit reached (1/1, max_diagnostic_calls)'],
  ] as const)
    it(`flat: ${name} holds across the children (the agent call is delegation, not diagnostic)`, async () => {
      const { s, ev, log } = await runTree('flat', settings);
      expect(log.calls).toHaveLength(1);
      const refused = ofType(ev, 'tool_end').filter((e) => e.depth === 1 && e.status === 'limit');
      expect(refused).toHaveLength(2);
      for (const e of refused) expect(e.output).toContain(message);
      expect(ofType(ev, 'done')[0]!.stats.tool_calls).toBe(2);
      await s.close();
    });
});

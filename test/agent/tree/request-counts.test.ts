/**
 * Every call of a request counts in its limits and its stats: the agents' own, the title,
 * the Validator's LLM calls and read-only tool calls, the root Validator's. Real graph, real
 * SQLite, fake LLM over HTTP.
 */
import { describe, expect, it } from 'vitest';
import type { FakeLlm, FakeTurn } from '../../fakes/llm/server.js';
import { collect, ofType, session, showCall, useFakeLlm, testSettings, testTools, type ToolLog } from '../helpers.js';
import { review } from './helpers.js';
import type { AgentStats } from '../../../src/core/events.js';

const { tmp, startLlm } = useFakeLlm('gc-tree-counts-');
const env = { AGENT_MODE: 'recursive' };
const usage = { prompt_tokens: 100, completion_tokens: 10 };
const delegate = (id: string, goal: string): FakeTurn => ({ tool_calls: [{ id, name: 'agent', args: { task_brief: { goal } } }], usage });
const pass = (summary: string): FakeTurn => ({ text: JSON.stringify({ verdict: 'pass', checks: [], summary }), usage });
const purposes = (l: FakeLlm, p: string | null) => l.requests.filter((r) => r.purpose === p).length;
const sum = (by: Record<string, AgentStats>, k: keyof AgentStats) => Object.values(by).reduce((n, a) => n + a[k], 0);

/** The root delegates one check of R1; the child shows R1 and answers; its Validator re-observes R1 once, then passes it. */
async function oneDelegation(settings: Record<string, unknown>) {
  const llm = await startLlm(
    [
      delegate('a', 'check R1'),
      { tool_calls: [showCall('R1', 'c1')], usage },
      { text: 'R1: OSPF Full', usage },
      { ...review('a'), usage },
      { text: 'R1 is Full', usage },
    ],
    {
      validator: [{ tool_calls: [showCall('R1', 'v1')], usage }, pass('R1 checked again')],
      rootValidator: [pass('the answer holds')],
      title: 'R1 OSPF check',
    },
  );
  const log: ToolLog = { calls: [] };
  const s = await session(testSettings(llm.url, tmp.dir, settings), testTools(log), { env });
  const ev = await collect(s.send('check R1'));
  return { llm, s, ev, log };
}

describe('every call of a request counts', () => {
  it('the Validators, the title and the agents: in stats (calls, tokens, cost, by_kind, by_agent) and in the sessions table', async () => {
    const { llm, s, ev, log } = await oneDelegation({ model_prices: { 'fake-model': { input: 1, output: 2 } } });
    expect(log.calls).toHaveLength(2); // the child's show and the Validator's
    const done = ofType(ev, 'done')[0]!;
    expect(done.stopped_reason).toBe('done');
    const { stats } = done;
    // root 3 + child 2, the Validator 2, the root Validator 1, the title 1: every request the model got
    expect(llm.requests).toHaveLength(9);
    expect(stats.llm_calls).toBe(9);
    // the title's tokens are the fake model's estimate; every other call says 100 in, 10 out
    const title = stats.by_kind!.title;
    expect(title).toMatchObject({ llm_calls: 1, tool_calls: 0 });
    expect(title.input_tokens).toBeGreaterThan(0);
    expect(stats.input_tokens).toBe(800 + title.input_tokens);
    expect(stats.output_tokens).toBe(80 + title.output_tokens);
    expect(stats.cost_usd).toBeCloseTo((stats.input_tokens * 1 + stats.output_tokens * 2) / 1e6, 9);
    // the root's agent and review_task calls, the child's show, the Validator's show
    expect(stats.tool_calls).toBe(4);
    expect(stats.by_kind).toEqual({
      agent: { llm_calls: 5, tool_calls: 3, input_tokens: 500, output_tokens: 50 },
      title,
      summary: { llm_calls: 0, tool_calls: 0, input_tokens: 0, output_tokens: 0 },
      validator: { llm_calls: 2, tool_calls: 1, input_tokens: 200, output_tokens: 20 },
      root_validator: { llm_calls: 1, tool_calls: 0, input_tokens: 100, output_tokens: 10 },
    });
    expect(purposes(llm, 'validator')).toBe(2);
    // by_agent still adds up to the totals: a Validator's calls are its sub-agent's, the root Validator's and the title the root's
    const by = stats.by_agent!;
    const child = s.tree().agents[0]!.id;
    expect(by.root).toEqual({
      llm_calls: 5,
      tool_calls: 2,
      input_tokens: 400 + title.input_tokens,
      output_tokens: 40 + title.output_tokens,
    });
    expect(by[child]).toEqual({ llm_calls: 4, tool_calls: 2, input_tokens: 400, output_tokens: 40 });
    for (const k of ['llm_calls', 'tool_calls', 'input_tokens', 'output_tokens'] as const) expect(sum(by, k)).toBe(stats[k]);
    // the sessions table holds what the request used, and the tree budget booked the same calls
    expect(s.info()).toMatchObject({ llm_calls: 9, input_tokens: stats.input_tokens, output_tokens: stats.output_tokens });
    expect(s.usage()!.llm_calls).toBe(9);
    await s.close();
  });

  it.each([
    ['--max-tool-calls', { max_tool_calls: 2 }, 'Tool call limit reached (2/2)'],
    ['--tool-limit', { tool_limits: { execute_multiple_device_commands: 1 } }, 'execute_multiple_device_commands'],
    ['max_diagnostic_calls', { max_diagnostic_calls: 1 }, 'max_diagnostic_calls'],
  ])("the Validator's read-only tool call counts against %s: refused there, not run", async (_flag, limit, says) => {
    const { s, ev, log } = await oneDelegation(limit);
    // only the child's show ran: the Validator's own was refused by the request's limit
    expect(log.calls).toHaveLength(1);
    const child = s.tree().agents[0]!.id;
    const refused = ofType(ev, 'tool_end').find((e) => e.id === 'v1')!;
    expect(refused).toMatchObject({ status: 'limit', agent_id: child, depth: 1 });
    expect(refused.output).toContain(says);
    expect(ofType(ev, 'tool_start').some((e) => e.id === 'v1')).toBe(false);
    const done = ofType(ev, 'done')[0]!;
    expect(done.stats.by_kind!.validator).toMatchObject({ llm_calls: 2, tool_calls: 0 });
    await s.close();
  });
});

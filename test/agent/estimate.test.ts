/**
 * --estimate through the real session (real SQLite, the fake LLM over HTTP, a fake
 * project): the first call is prepared as a run prepares it, nothing is sent to the
 * model and no tool runs. Exactness: a real run of the same prompt reports the same
 * token counts in its first `context` event.
 */
import { describe, expect, it } from 'vitest';
import type { FakeLlm } from '../fakes/llm/server.js';
import { collect, fakeProject, ofType, session, testSettings, testTools, useFakeLlm, type ToolLog } from './helpers.js';
import { topologyNode } from '../helpers/topology.js';
import { estimateText } from '../../src/agent/session/estimate.js';

const { tmp, startLlm } = useFakeLlm('gc-estimate-');
let llm: FakeLlm | undefined;
const project = () => fakeProject({ nodes: [topologyNode('R1'), topologyNode('R2')] });
const prices = { 'fake-model': { input: 2, output: 8 } };

describe('--estimate', () => {
  it('counts the first call exactly as a run prepares it, and sends nothing', async () => {
    llm = await startLlm([{ text: 'a real answer' }]);
    const log: ToolLog = { calls: [] };
    const settings = testSettings(llm.url, tmp.dir, { model_prices: prices, max_iterations: 5, max_tokens: 1000 });
    const est = await session(settings, testTools(log), { projectScope: async () => project() });
    const e = await est.estimate('check R1 and R2');
    expect(est.info()).toBeUndefined(); // no session row
    await est.close();
    expect(llm.requests).toHaveLength(0);
    expect(log.calls).toHaveLength(0);
    expect(e.topology).toEqual({ injected: true, nodes: ['R1', 'R2'] });
    expect(e.tools).toBe(4); // the three test tools and read_context_ref (every session pages its cut results)
    expect(e.messages).toEqual({ history: 1, sent: 1, trimmed: 0 });
    expect(e.output_cap).toBe(1000);
    expect(e.context_budget).toBe(24_000); // 32K × balanced 75%
    expect(e.max_iterations).toBe(5);
    expect(e.first_call_usd).toBeCloseTo((e.tokens.total * 2 + 1000 * 8) / 1e6, 6);
    expect(e.worst_case_usd).toBeCloseTo((5 * (24_000 * 2 + 1000 * 8)) / 1e6, 6);

    // the same prompt really sent: its first context event has the estimate's numbers
    const run = await session(settings, testTools(log), { projectScope: async () => project() });
    const ctx = ofType(await collect(run.send('check R1 and R2')), 'context')[0]!;
    await run.close();
    expect(llm.requests.filter((r) => r.purpose === null)).toHaveLength(1);
    expect({ tokens: ctx.tokens, tools: ctx.tools_tokens, limit: ctx.limit, percent: ctx.percent }).toEqual({
      tokens: e.tokens.prompt,
      tools: e.tokens.tools,
      limit: e.tokens.context_limit,
      percent: e.tokens.percent,
    });
    const text = estimateText(e);
    expect(text).toContain('R1, R2 (2 nodes)');
    expect(text).toContain(`${e.tokens.prompt} prompt + ${e.tokens.tools} tool schemas (4 tools)`);
    expect(text).toContain('5 iterations × 24000 in + 1000 out');
  });

  it('a resumed session counts its history (trimmed to the budget); --max-cost caps the worst case; an unpriced model has none', async () => {
    llm = await startLlm([{ text: `first answer ${'word '.repeat(600)}` }]);
    const base = { context_limit: 1, context_summarize: false };
    const first = await session(testSettings(llm.url, tmp.dir, base), []);
    await collect(first.send('first question'));
    await first.close();
    const before = llm.requests.length;
    const resumed = await session(testSettings(llm.url, tmp.dir, base), [], { sessionId: first.id });
    const e = await resumed.estimate('second question');
    await resumed.close();
    expect(llm.requests).toHaveLength(before);
    expect(e.messages.history).toBe(3);
    expect(e.messages.sent).toBe(1); // the long first turn does not fit --context-limit 1
    expect(e.price).toBeNull();
    expect(e.worst_case_usd).toBeNull();
    expect(estimateText(e)).toContain('unknown (the model has no price: model_prices)');

    const capped = await session(testSettings(llm.url, tmp.dir, { model_prices: prices, max_cost: 0.01 }), []);
    const c = await capped.estimate('anything');
    await capped.close();
    expect(c.output_cap).toBe(4096);
    expect(c.worst_case_usd).toBe(0.01);
    expect(c.max_cost_usd).toBe(0.01);
  });
});

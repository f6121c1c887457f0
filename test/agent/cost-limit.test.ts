/**
 * --max-cost through the real graph, real SQLite and the fake LLM over HTTP: each call's
 * worst case is reserved before it, the real cost booked after, and a call that would
 * cross the limit is never sent (asserted against the fake LLM's request count).
 */
import { describe, expect, it } from 'vitest';
import type { FakeLlm, FakeRequest, FakeTurn } from '../fakes/llm/server.js';
import { collect, ofType, session, showCall, testSettings, testTools, text, useFakeLlm, type ToolLog } from './helpers.js';
import { ResultBuilder, exitCodeOf } from '../../src/output/summary.js';
import type { AgentEvent } from '../../src/core/events.js';
import { CostMeter, worstCaseUsd } from '../../src/agent/cost-limit.js';
import { ExitCode } from '../../src/errors.js';
import { review } from './tree/helpers.js';

const { tmp, startLlm } = useFakeLlm('gc-cost-');
let llm: FakeLlm | undefined;
const chat = (l: FakeLlm): FakeRequest[] => l.requests.filter((r) => r.purpose === null);
const exitOf = (events: AgentEvent[]) => {
  const b = new ResultBuilder('teaching_assistant');
  events.forEach((e) => b.add(e));
  return exitCodeOf(b.result());
};
/** 0.01 USD per output token, input free: a call's worst case is max_tokens × 0.01 */
const OUTPUT_PRICED = { 'fake-model': { input: 0, output: 10_000 } };
const usage = { prompt_tokens: 100, completion_tokens: 5 };
/** each turn asks for one more show call, the real cost 5 × 0.01 = 0.05 */
const toolTurns = (n: number): FakeTurn[] => Array.from({ length: n }, (_, i) => ({ tool_calls: [showCall(`R${i}`, `t${i}`)], usage }));

describe('CostMeter', () => {
  it('reserves worst cases against spent + reserved, and books the real cost (the reservation when unknown)', () => {
    const m = new CostMeter(1);
    const a = m.reserve(0.6)!;
    expect(m.reserve(0.5)).toBeUndefined(); // 0.6 reserved + 0.5 > 1
    m.book(a, 0.2);
    expect(m.spent).toBeCloseTo(0.2);
    const b = m.reserve(0.8)!; // 0.2 + 0.8 = 1: not over
    m.book(b, undefined);
    expect(m.spent).toBeCloseTo(1);
    expect(m.reserve(0.000001)).toBeUndefined();
    expect(worstCaseUsd({ input: 2, output: 8 }, 1000, 500)).toBeCloseTo(0.006);
  });
});

describe('--max-cost', () => {
  for (const on_limit of ['warn', 'continue', 'fail'] as const)
    it(`stops before the call that would cross it (on_limit ${on_limit}: never soft)`, async () => {
      // worst case per call 10 × 0.01 = 0.1; real 0.05: calls 1 and 2 fit (0 + 0.1, 0.05 + 0.1), call 3 (0.1 + 0.1 > 0.19) does not
      llm = await startLlm([...toolTurns(3), { text: 'never sent' }]);
      const log: ToolLog = { calls: [] };
      const s = await session(
        testSettings(llm.url, tmp.dir, { max_cost: 0.19, max_tokens: 10, model_prices: OUTPUT_PRICED, on_limit }),
        testTools(log),
      );
      const ev = await collect(s.send('check every router'));
      expect(chat(llm)).toHaveLength(2);
      for (const r of chat(llm)) expect(r.body.max_tokens).toBe(10);
      expect(log.calls).toHaveLength(2);
      const done = ofType(ev, 'done')[0]!;
      expect(done.stopped_reason).toBe('max_cost');
      expect(done.stats.llm_calls).toBe(2);
      expect(done.stats.cost_usd).toBeCloseTo(0.1);
      expect(ofType(ev, 'limit')).toEqual([expect.objectContaining({ reason: 'max_cost', action: 'stop' })]);
      expect(text(ev)).toContain('⚠ Stopped: the next LLM call could cost more than is left of the cost limit ($0.19, --max-cost');
      expect(exitOf(ev)).toBe(on_limit === 'fail' ? ExitCode.Limit : 0);
      const b = new ResultBuilder('teaching_assistant');
      ev.forEach((e) => b.add(e));
      expect(b.result().limits_exceeded ?? []).toEqual([]);
      await s.close();
    });

  it('without max_tokens the chat calls are capped, so the worst case is known', async () => {
    llm = await startLlm([{ text: 'fine', usage }]);
    const s = await session(testSettings(llm.url, tmp.dir, { max_cost: 1000, model_prices: OUTPUT_PRICED }), testTools({ calls: [] }));
    await collect(s.send('hello'));
    expect(chat(llm)[0]!.body.max_tokens).toBe(4096);
    await s.close();
  });

  it('when the call with tools would cross it, a tools-free answer that fits is made (warn)', async () => {
    // input priced at 0.001 per token, output free: the worst case is the prepared input
    const prices = { 'fake-model': { input: 1000, output: 0 } };
    const tiny = { prompt_tokens: 1, completion_tokens: 1 };
    llm = await startLlm([{ text: 'measured', usage: tiny }]);
    const probe = await session(testSettings(llm.url, `${tmp.dir}/probe`, { model_prices: prices }), testTools({ calls: [] }));
    const ctx = ofType(await collect(probe.send('check R1')), 'context')[0]!;
    await probe.close();
    expect(ctx.tools_tokens).toBeGreaterThan(100);
    // room for the prompt, the wrap-up instruction and half the tool schemas: the call with tools does not fit
    const max_cost = (ctx.tokens + ctx.tools_tokens / 2) / 1000;

    llm = await startLlm([{ text: 'R1 was not checked: the cost limit allows no tool call.', usage: tiny }]);
    const log: ToolLog = { calls: [] };
    const s = await session(testSettings(llm.url, tmp.dir, { max_cost, model_prices: prices }), testTools(log));
    const ev = await collect(s.send('check R1'));
    expect(chat(llm)).toHaveLength(1);
    expect(chat(llm)[0]!.body.tools).toBeUndefined();
    expect(String(chat(llm)[0]!.body.messages[0]!.content)).toContain('This request reached a limit (max_cost). Do not call tools.');
    expect(ofType(ev, 'limit')).toEqual([expect.objectContaining({ reason: 'max_cost', action: 'wrap_up' })]);
    const done = ofType(ev, 'done')[0]!;
    expect(done.stopped_reason).toBe('max_cost');
    expect(text(ev)).toContain('the cost limit allows no tool call');
    expect(text(ev)).not.toContain('⚠ Stopped');
    expect(exitOf(ev)).toBe(0);
    await s.close();
  });

  it('is shared by sub-agents: a child is refused like the root once the request would cross it', async () => {
    const tasks = ['TASK-ALPHA', 'TASK-BETA'];
    // root call (0.05), child ALPHA's call (0.05), then nothing fits a further 0.1 worst case under 0.19
    llm = await startLlm([
      { text: 'ROOT-DELEGATES', tool_calls: [{ id: 'a1', name: 'agent', args: { messages: tasks } }], usage },
      { when: 'TASK-ALPHA', text: 'ALPHA answered', usage },
      { when: 'TASK-BETA', text: 'BETA answered', usage },
      { when: 'ROOT-DELEGATES', text: 'root answer', usage },
    ]);
    const s = await session(
      testSettings(llm.url, tmp.dir, { max_cost: 0.19, max_tokens: 10, model_prices: OUTPUT_PRICED }),
      testTools({ calls: [] }),
    );
    const ev = await collect(s.send('two tasks'));
    expect(chat(llm)).toHaveLength(2);
    const done = ofType(ev, 'done')[0]!;
    expect(done.stopped_reason).toBe('max_cost');
    expect(done.stats.llm_calls).toBe(2);
    expect(ofType(ev, 'limit').every((e) => e.reason === 'max_cost' && e.action === 'stop')).toBe(true);
    await s.close();
  });

  it('recursive: a Validator call whose worst case would cross it is not made; the verdict is uncertain, never pass', async () => {
    const delegate: FakeTurn = { tool_calls: [{ id: 'a', name: 'agent', args: { task_brief: { goal: 'check R1' } } }], usage };
    llm = await startLlm(
      [
        delegate,
        { tool_calls: [showCall('R1', 's1')], usage },
        { text: 'R1 is fine', usage },
        { ...review('a', 'accept'), usage },
        { text: 'root done', usage },
      ],
      { validator: [{ text: '{"verdict":"pass","checks":[],"summary":"never asked"}' }] },
    );
    // chat calls: at most 10 × 0.01 each; a Validator call's output cap alone is 1500 × 0.01
    const s = await session(
      testSettings(llm.url, tmp.dir, { max_cost: 1, max_tokens: 10, model_prices: OUTPUT_PRICED }),
      testTools({ calls: [] }),
      { env: { AGENT_MODE: 'recursive' } },
    );
    const ev = await collect(s.send('check R1'));
    expect(llm.requests.filter((r) => r.purpose === 'validator' || r.purpose === 'root_validator')).toHaveLength(0);
    const v = ofType(ev, 'validation');
    expect(v.map((x) => (x.agent_id ? 'child' : 'root'))).toEqual(['child', 'root']);
    for (const x of v) {
      expect(x.verdict).toBe('uncertain');
      expect(x.summary).toContain('--max-cost');
    }
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('done');
    await s.close();
  });

  it('a history summary that would cross it is not asked for: the old history is dropped instead', async () => {
    llm = await startLlm([
      { text: `first answer ${'word '.repeat(600)}`, usage },
      { text: 'second answer', usage },
    ]);
    // context_limit 1: the second request trims the first turn, which context_summarize would summarize (600 × 0.01 > 1)
    const s = await session(
      testSettings(llm.url, tmp.dir, { max_cost: 1, max_tokens: 10, model_prices: OUTPUT_PRICED, context_limit: 1 }),
      [],
    );
    await collect(s.send('first question'));
    const ev = await collect(s.send('second question'));
    expect(llm.requests.filter((r) => r.purpose === 'summary')).toHaveLength(0);
    expect(ofType(ev, 'context')[0]!.trimmed).toBeGreaterThan(0);
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('done');
    await s.close();
  });

  it('a model without a price is refused at start (exit 2, naming model_prices)', async () => {
    llm = await startLlm([]);
    const err = await session(testSettings(llm.url, tmp.dir, { max_cost: 1 }), []).then(
      () => undefined,
      (e: unknown) => e as { exitCode: number; message: string },
    );
    expect(err?.exitCode).toBe(ExitCode.Usage);
    expect(err?.message).toContain('model_prices');
    expect(err?.message).toContain('fake-model');
    expect(llm.requests).toHaveLength(0);
  });
});

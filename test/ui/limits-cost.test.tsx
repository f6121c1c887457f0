/**
 * `/limits cost=` over a real session (real graph, real SQLite, fake LLM over HTTP): the
 * per-request cost limit is set, shown in the status bar and enforced on the next request;
 * a model without a price refuses it (it could not hold), and `cost=off` clears it. A request
 * that reaches it asks like any other limit: `y` raises it and the call is made, `n` stops.
 */
import { describe, expect, it } from 'vitest';
import { until } from './helpers/scripted-session.js';
import { mountReal } from './harness.js';
import { session, showCall, testSettings, testTools, useFakeLlm as fakeLlmFor, type ToolLog } from '../agent/helpers.js';
import type { FakeLlm, FakeRequest } from '../fakes/llm/server.js';

const { tmp, startLlm } = fakeLlmFor('gc-tui-cost-');
const chat = (l: FakeLlm): FakeRequest[] => l.requests.filter((r) => r.purpose === null);
/** 0.01 USD per output token, input free: with max_tokens 10 a call's worst case is $0.10 */
const OUTPUT_PRICED = { 'fake-model': { input: 0, output: 10_000 } };
const usage = { prompt_tokens: 100, completion_tokens: 5 };

function mountWith(llm: FakeLlm, extra: Record<string, unknown>, opts: { askLimits?: boolean } = {}) {
  const settings = testSettings(llm.url, tmp.dir, extra);
  const log: ToolLog = { calls: [] };
  return mountReal(settings, (o) =>
    session(settings, testTools(log), {
      approver: o.approver,
      ...(opts.askLimits && o.limitAsker ? { limitAsker: o.limitAsker } : {}),
    }),
  );
}

describe('/limits cost=', () => {
  it('refuses a cost limit for a model without a price: nothing changes', async () => {
    const llm = await startLlm([]);
    const m = mountWith(llm, {});
    try {
      await m.ready();
      await m.type('/limits cost=0.5');
      await m.waitFor('has no price; add it to model_prices');
      expect(m.session()!.limits.max_cost).toBeUndefined();
      expect(m.frame()).not.toContain('/request');
    } finally {
      await m.close();
    }
  });

  it('sets the per-request cost limit, shows it in the status bar and stops the request that would cross it', async () => {
    // calls 1 and 2 fit under $0.19 (worst 0.10 each, real 0.05); the third would not
    const llm = await startLlm([
      { tool_calls: [showCall('R1', 'a')], usage },
      { tool_calls: [showCall('R2', 'b')], usage },
      { text: 'never sent' },
    ]);
    const m = mountWith(llm, { model_prices: OUTPUT_PRICED, max_tokens: 10 });
    try {
      await m.ready();
      await m.type('/limits cost=0.19');
      await m.waitFor('cost $0.19');
      await m.waitFor('max $0.19/request');
      expect(m.session()!.limits.max_cost).toBe(0.19);
      await m.type('check the routers');
      await m.waitFor('stopped: cost limit reached (--max-cost)');
      expect(chat(llm)).toHaveLength(2);
      await until(() => !m.frame().includes('working…'), 5_000, 'the turn to end');
      await m.type('/limits cost=off');
      await m.waitFor('cost ∞');
      expect(m.session()!.limits.max_cost).toBeUndefined();
      await until(() => !m.frame().includes('/request'), 5_000, `the status bar without a cost limit\n${m.frame()}`);
    } finally {
      await m.close();
    }
  });

  it('asks before the call the cost limit refuses: y raises it for the request and the call is made, n stops', async () => {
    const llm = await startLlm([
      { tool_calls: [showCall('R1', 'a')], usage },
      { tool_calls: [showCall('R2', 'b')], usage },
      { text: 'ANSWER-ONE: both routers checked.', usage },
      { tool_calls: [showCall('R1', 'c')], usage },
      { tool_calls: [showCall('R2', 'd')], usage },
      { text: 'never sent' },
    ]);
    const m = mountWith(llm, { model_prices: OUTPUT_PRICED, max_tokens: 10, max_cost: 0.19 }, { askLimits: true });
    const flat = () =>
      m
        .frame()
        .replace(/[│╭╮╰╯─]/g, ' ')
        .replace(/\s+/g, ' ');
    // spent 0.10 after two calls; the third's worst case (0.10) needs 0.20: half again is 0.285, to the cent 0.29
    const question =
      'Cost limit reached ($0.10/$0.19). Raise to $0.29 and go on? [y] once · [a] for this session · [n] answer with what you have';
    try {
      await m.ready();
      await m.type('check the routers');
      await until(() => flat().includes(question), 10_000, `the cost limit prompt\n${m.frame()}`);
      expect(chat(llm)).toHaveLength(2);
      m.stdin.write('y');
      await m.waitFor('ANSWER-ONE');
      expect(chat(llm)).toHaveLength(3);
      expect(m.session()!.limits.max_cost).toBe(0.19); // once: the session keeps its limit
      await until(() => !m.frame().includes('working…'), 5_000, 'the turn to end');

      await m.type('check them again');
      await until(() => flat().includes(question), 10_000, `the second prompt\n${m.frame()}`);
      m.stdin.write('n');
      await m.waitFor('stopped: cost limit reached (--max-cost)');
      expect(chat(llm)).toHaveLength(5);
    } finally {
      await m.close();
    }
  });
});

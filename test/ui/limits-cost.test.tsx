/**
 * `/limits cost=` over a real session (real graph, real SQLite, fake LLM over HTTP): the
 * per-request cost limit is set, shown in the status bar and enforced on the next request;
 * a model without a price refuses it (it could not hold), and `cost=off` clears it.
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

function mountWith(llm: FakeLlm, extra: Record<string, unknown>) {
  const settings = testSettings(llm.url, tmp.dir, extra);
  const log: ToolLog = { calls: [] };
  return mountReal(settings, (o) => session(settings, testTools(log), { approver: o.approver }));
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
});

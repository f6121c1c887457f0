/**
 * Raising a reached limit in place, through the real graph and the fake LLM with a
 * LimitAsker standing in for the user (the TUI's prompt is test/ui/limit-prompt.test.tsx).
 */
import { describe, expect, it } from 'vitest';
import type { FakeLlm, FakeRequest } from '../fakes/llm/server.js';
import { collect, ofType, session, showCall, testSettings, testTools, useFakeLlm, type ToolLog } from './helpers.js';
import { costRaiseTarget, raisedValue, sameLimits, toolRaiseTarget } from '../../src/agent/limit-raise.js';
import type { LimitRaiseDecision, LimitRaiseRequest } from '../../src/core/api.js';

const { tmp, startLlm } = useFakeLlm('gc-raise-');
let llm: FakeLlm | undefined;
const chat = (l: FakeLlm): FakeRequest[] => l.requests.filter((r) => r.purpose === null);

describe('raising a limit', () => {
  it('raises by half again within the range', () => {
    expect([1, 2, 3, 20, 40, 50].map((m) => raisedValue(m, 50))).toEqual([2, 3, 5, 30, 50, undefined]);
    const limits = { max_iterations: 20, tool_limits: {}, on_limit: 'warn' as const, max_device_config_calls: 4 };
    const group = (n: string) => (n === 'show' ? ('diagnostic' as const) : ('config' as const));
    expect(toolRaiseTarget('tool_limit', 'cfg', 'config', limits, { count: 9, counts: { cfg: 3, config_x: 1, show: 5 } }, group)).toEqual({
      label: 'Device config call limit',
      used: 4,
      max: 4,
      raise_to: 6,
      patch: { max_device_config_calls: 6 },
    });
  });

  it('tells limits a parallel run raised from the ones a run holds (tool_limits entry by entry)', () => {
    const base = { max_iterations: 20, max_tool_calls: 4, tool_limits: { show: 2 }, on_limit: 'warn' as const };
    expect(sameLimits(base, { ...base, tool_limits: { show: 2 } })).toBe(true);
    expect(sameLimits(base, { ...base, on_limit: 'fail' as const })).toBe(true); // not a limit the user raises
    expect(sameLimits(base, { ...base, max_tool_calls: 6 })).toBe(false);
    expect(sameLimits(base, { ...base, tool_limits: { show: 3 } })).toBe(false);
    expect(sameLimits(base, { ...base, tool_limits: { show: 2, cfg: 1 } })).toBe(false);
    expect(sameLimits(base, { ...base, max_cost: 0.5 })).toBe(false);
    expect(sameLimits(base, { ...base, max_device_config_calls: 3 })).toBe(false);
    expect(sameLimits(base, { ...base, max_diagnostic_calls: 3 })).toBe(false);
    expect(sameLimits(base, { ...base, max_iterations: 30 })).toBe(false);
  });

  it('raises the cost limit by half again, or to the cent above what the refused call needs, within $1000', () => {
    const m = (spent: number, committed: number, max: number) => ({ spent, committed, max });
    expect(costRaiseTarget(m(0.1, 0.1, 0.19), 0.1)).toEqual({
      label: 'Cost limit',
      used: 0.1,
      max: 0.19,
      raise_to: 0.29,
      unit: 'usd',
      patch: { max_cost: 0.29 },
    });
    // the call needs more than half again: 0.5 spent + 0.1 held + 1.234 worst = 1.834 → 1.84
    expect(costRaiseTarget(m(0.5, 0.6, 1), 1.234)?.raise_to).toBe(1.84);
    expect(costRaiseTarget(m(0.1, 0.1, 0.2), 0.05)?.raise_to).toBe(0.3); // not 0.31 from float noise
    expect(costRaiseTarget(m(700, 700, 800), 10)?.raise_to).toBe(1000);
    expect(costRaiseTarget(m(999, 999, 1000), 10)).toBeUndefined(); // at the top
    expect(costRaiseTarget(m(900, 990, 999), 20)).toBeUndefined(); // 1010 needed, above the top
  });

  it('before the last allowed iteration the user is asked; y gives the run more iterations with tools', async () => {
    llm = await startLlm([{ tool_calls: [showCall('R1', 'a')] }, { tool_calls: [showCall('R2', 'b')] }, { text: 'both checked' }]);
    const log: ToolLog = { calls: [] };
    const asked: LimitRaiseRequest[] = [];
    // y once, then n when the raised limit is reached too
    const limitAsker = async (req: LimitRaiseRequest): Promise<LimitRaiseDecision> => (asked.push(req), asked.length === 1 ? 'once' : 'no');
    const s = await session(testSettings(llm.url, tmp.dir, { max_iterations: 2 }), testTools(log), { limitAsker });
    const ev = await collect(s.send('check R1 and R2'));
    expect(asked.map((q) => [q.label, q.used, q.max, q.raise_to])).toEqual([
      ['Iteration limit', 2, 2, 3],
      ['Iteration limit', 3, 3, 5],
    ]);
    expect(chat(llm)).toHaveLength(3);
    expect(chat(llm)[1]!.body.tools?.length).toBeGreaterThan(0);
    expect(chat(llm)[2]!.body.tools).toBeUndefined();
    expect(log.calls).toHaveLength(2);
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('max_iterations');
    expect(s.limits.max_iterations).toBe(2);
    await s.close();
  });

  it('without an asker (one-shot, MCP) on_limit decides; a declined limit is not asked again in the request', async () => {
    llm = await startLlm([{ tool_calls: [showCall('R1', 'a'), showCall('R2', 'b'), showCall('R3', 'c')] }, { text: 'partial' }]);
    const asked: LimitRaiseRequest[] = [];
    const limitAsker = async (req: LimitRaiseRequest): Promise<LimitRaiseDecision> => (asked.push(req), 'no');
    const s = await session(testSettings(llm.url, tmp.dir, { max_tool_calls: 1 }), testTools({ calls: [] }), { limitAsker });
    const ev = await collect(s.send('x'));
    expect(asked).toHaveLength(1);
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('max_tool_calls');
    expect(ofType(ev, 'tool_end').filter((e) => e.status === 'limit')).toHaveLength(2);
    await s.close();
  });
});

/** The loop's limit and stop decision (src/agent/limits.ts) as a table: pure, no graph. */
import { describe, expect, it } from 'vitest';
import { callPlan, enforcedLimits, limitDecision, recursionLimitFor, HARD_CEILINGS, type LoopFacts } from '../../src/agent/limits.js';
import type { RequestLimits } from '../../src/core/api.js';

const L = (o: Partial<RequestLimits> = {}): RequestLimits => ({ max_iterations: 5, tool_limits: {}, on_limit: 'warn', ...o });
const F = (o: Partial<LoopFacts> = {}): LoopFacts => ({
  limit: null,
  tools_offered: true,
  llm_calls: 1,
  limits: L(),
  pending: 0,
  answered: true,
  results: false,
  child: false,
  clock: null,
  ...o,
});

describe('limitDecision', () => {
  const rows: [string, Partial<LoopFacts>, ReturnType<typeof limitDecision>][] = [
    ['an answer without calls ends the run', {}, { kind: 'end', reason: 'done', note: false }],
    ['pending calls run', { pending: 2, answered: false }, { kind: 'tools' }],
    ['tool results go back to the model', { results: true, answered: false }, { kind: 'llm' }],
    ['Esc ends at once, no note', { clock: 'aborted', pending: 1 }, { kind: 'end', reason: 'aborted', note: false }],
    ['--max-time ends at once with the note', { clock: 'max_time', results: true }, { kind: 'end', reason: 'max_time', note: true }],
    [
      'a tools-free call is the last: its calls never run',
      { tools_offered: false, limit: 'max_iterations', pending: 1, answered: false },
      { kind: 'end', reason: 'max_iterations', note: true },
    ],
    [
      'a tools-free call that answered ends without the note',
      { tools_offered: false, limit: 'max_tool_calls', pending: 1 },
      { kind: 'end', reason: 'max_tool_calls', note: false },
    ],
    ['a tools-free call in a mode without tools is a plain answer', { tools_offered: false }, { kind: 'end', reason: 'done', note: false }],
    ['warn: a tool limit gets one tools-free wrap-up', { limit: 'max_tool_calls', results: true }, { kind: 'llm' }],
    [
      'continue: a hard ceiling gets the wrap-up too',
      { limit: 'tool_limit', results: true, limits: L({ on_limit: 'continue' }) },
      { kind: 'llm' },
    ],
    [
      'fail: a tool limit stops at once with the note',
      { limit: 'tool_limit', results: true, limits: L({ on_limit: 'fail' }) },
      { kind: 'end', reason: 'tool_limit', note: true },
    ],
    [
      'fail: the last iteration still asking for tools stops',
      { llm_calls: 5, pending: 1, limits: L({ on_limit: 'fail' }) },
      { kind: 'end', reason: 'max_iterations', note: true },
    ],
    [
      'fail: the last iteration answering is done',
      { llm_calls: 5, limits: L({ on_limit: 'fail' }) },
      { kind: 'end', reason: 'done', note: false },
    ],
    ['budget: a child stops', { limit: 'budget', child: true, pending: 2, answered: false }, { kind: 'end', reason: 'budget', note: true }],
    ['budget: the root gets its reserved final call', { limit: 'budget', pending: 2 }, { kind: 'llm' }],
    ['budget: a root that just answered ends', { limit: 'budget' }, { kind: 'end', reason: 'budget', note: false }],
    [
      'budget refused the call: the run ends with the note',
      { limit: 'budget', tools_offered: false, results: true, answered: false },
      { kind: 'end', reason: 'budget', note: true },
    ],
    [
      '--max-cost ends without another call',
      { limit: 'max_cost', results: true, answered: false },
      { kind: 'end', reason: 'max_cost', note: true },
    ],
    [
      'a time limit seen by the tools node ends with the note even after an answer',
      { limit: 'max_time', pending: 1 },
      { kind: 'end', reason: 'max_time', note: true },
    ],
    [
      'Esc seen by the tools node ends without the note',
      { limit: 'aborted', pending: 1, answered: false },
      { kind: 'end', reason: 'aborted', note: false },
    ],
    ['warn: the iteration limit gets one tools-free wrap-up', { limit: 'max_iterations', results: true, answered: false }, { kind: 'llm' }],
    [
      'fail: the iteration limit stops at once with the note',
      { limit: 'max_iterations', limits: L({ on_limit: 'fail' }) },
      { kind: 'end', reason: 'max_iterations', note: true },
    ],
    [
      'a time limit seen by the tools node ends',
      { limit: 'max_time', results: true, answered: false },
      { kind: 'end', reason: 'max_time', note: true },
    ],
  ];
  for (const [name, facts, want] of rows) it(name, () => expect(limitDecision(F(facts))).toEqual(want));
});

describe('callPlan', () => {
  it('offers tools until the last allowed iteration (warn, continue at its ceiling)', () => {
    expect(callPlan({ reached: null, llm_calls: 0, limits: L({ max_iterations: 2 }) })).toEqual({ tools: true, last: null });
    expect(callPlan({ reached: null, llm_calls: 1, limits: L({ max_iterations: 2 }) })).toEqual({ tools: false, last: 'max_iterations' });
    expect(callPlan({ reached: null, llm_calls: 0, limits: L({ max_iterations: 1 }) })).toEqual({ tools: false, last: 'max_iterations' });
    const cont = L({ max_iterations: 1, on_limit: 'continue' });
    expect(callPlan({ reached: null, llm_calls: 5, limits: cont }).tools).toBe(true);
    expect(callPlan({ reached: null, llm_calls: HARD_CEILINGS.max_iterations - 1, limits: cont })).toEqual({
      tools: false,
      last: 'max_iterations',
    });
  });
  it('fail keeps tools in the last iteration; a reached limit is a tools-free wrap-up', () => {
    expect(callPlan({ reached: null, llm_calls: 0, limits: L({ max_iterations: 1, on_limit: 'fail' }) }).tools).toBe(true);
    expect(callPlan({ reached: 'budget', llm_calls: 0, limits: L() })).toEqual({ tools: false, last: 'budget' });
  });
});

describe('enforcedLimits', () => {
  it('continue turns the count limits into the hard ceilings; time and cost stay', () => {
    const l = L({ on_limit: 'continue', max_tool_calls: 2, tool_limits: { x: 1 }, max_diagnostic_calls: 1, max_time: 9, max_cost: 1 });
    expect(enforcedLimits(l)).toEqual({
      max_iterations: 100,
      max_tool_calls: 50,
      tool_limits: {},
      on_limit: 'continue',
      max_time: 9,
      max_cost: 1,
    });
    const w = L({ max_tool_calls: 2 });
    expect(enforcedLimits(w)).toBe(w);
  });
  it('the recursion limit covers the enforced iterations', () => {
    expect(recursionLimitFor(L({ max_iterations: 3 }))).toBe(16);
    expect(recursionLimitFor(L({ max_iterations: 3, on_limit: 'continue' }))).toBe(210);
  });
});

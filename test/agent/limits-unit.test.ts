/**
 * src/agent/limits.ts besides the loop decision (limit-decision.test.ts): limits from the
 * settings, the retry count, the group caps, and every text the model and the user read
 * when a limit is reached, as tables (exact words: they are what the user sees).
 */
import { describe, expect, it } from 'vitest';
import {
  describeLimits,
  limitEventMessage,
  limitNote,
  limitsFromSettings,
  toolRetries,
  wrapUpInstruction,
} from '../../src/agent/limits.js';
import {
  groupCapRefusal,
  iterationLimitMessage,
  pendingNotExecutedMessage,
  perToolLimitMessage,
  toolCallLimitMessage,
  toolsNotOfferedMessage,
} from '../../src/tools/limit-wording.js';
import type { RequestLimits } from '../../src/core/api.js';
import type { LimitGroup } from '../../src/tools/types.js';

const L = (o: Partial<RequestLimits> = {}): RequestLimits => ({ max_iterations: 5, tool_limits: {}, on_limit: 'warn', ...o });
const NOT_RUN = 'was not run. Answer with the results you have.';

describe('limitsFromSettings', () => {
  it('the required fields and the defaults of the optional ones; absent limits stay absent', () => {
    expect(limitsFromSettings({ max_iterations: 7, tool_limits: {}, on_limit: 'fail' })).toStrictEqual({
      max_iterations: 7,
      tool_limits: {},
      on_limit: 'fail',
      max_parallel_tools: 5,
      max_retries_per_tool: 1,
      retry_on_tool_error: false,
    });
  });

  it('every limit that is set is carried over, the tool limits as a copy', () => {
    const tool_limits = { show_run: 2 };
    const l = limitsFromSettings({
      max_iterations: 9,
      max_tool_calls: 4,
      max_time: 60,
      max_cost: 0.5,
      tool_limits,
      on_limit: 'continue',
      max_parallel_tools: 3,
      max_retries_per_tool: 0,
      retry_on_tool_error: false,
      max_device_config_calls: 2,
      max_diagnostic_calls: 8,
    });
    expect(l).toStrictEqual({
      max_iterations: 9,
      max_tool_calls: 4,
      max_time: 60,
      max_cost: 0.5,
      tool_limits: { show_run: 2 },
      on_limit: 'continue',
      max_parallel_tools: 3,
      max_retries_per_tool: 0,
      retry_on_tool_error: false,
      max_device_config_calls: 2,
      max_diagnostic_calls: 8,
    });
    expect(l.tool_limits).not.toBe(tool_limits);
  });
});

describe('toolRetries', () => {
  const rows: [string, Partial<RequestLimits>, number][] = [
    ['the default: one retry', {}, 1],
    ['max_retries_per_tool when retrying after a reached target is on', { retry_on_tool_error: true, max_retries_per_tool: 3 }, 3],
    ['max_retries_per_tool when retrying is not said', { max_retries_per_tool: 2 }, 2],
    // retry_on_tool_error off still retries what reached nothing (src/tools/retry.ts mayRetry decides which failures)
    ['max_retries_per_tool when retrying after a reached target is off', { retry_on_tool_error: false, max_retries_per_tool: 3 }, 3],
    ['zero retries stays zero', { max_retries_per_tool: 0 }, 0],
  ];
  for (const [name, l, want] of rows) it(name, () => expect(toolRetries(L(l))).toBe(want));
});

describe('describeLimits', () => {
  it('names what is unlimited and fills the defaults', () => {
    expect(describeLimits(L())).toStrictEqual({
      max_iterations: 5,
      max_tool_calls: 'unlimited',
      max_time_s: 'none',
      max_cost_usd: 'none',
      tool_limits: {},
      on_limit: 'warn',
      max_parallel_tools: 5,
      max_retries_per_tool: 1,
      retry_on_tool_error: false,
      max_device_config_calls: 'unlimited',
      max_diagnostic_calls: 'unlimited',
    });
  });
  it('shows every limit that is set', () => {
    const l = L({
      max_tool_calls: 4,
      max_time: 60,
      max_cost: 0.25,
      tool_limits: { ping: 3 },
      on_limit: 'fail',
      max_parallel_tools: 2,
      max_retries_per_tool: 4,
      retry_on_tool_error: true,
      max_device_config_calls: 1,
      max_diagnostic_calls: 6,
    });
    expect(describeLimits(l)).toStrictEqual({
      max_iterations: 5,
      max_tool_calls: 4,
      max_time_s: 60,
      max_cost_usd: 0.25,
      tool_limits: { ping: 3 },
      on_limit: 'fail',
      max_parallel_tools: 2,
      max_retries_per_tool: 4,
      retry_on_tool_error: true,
      max_device_config_calls: 1,
      max_diagnostic_calls: 6,
    });
  });
});

describe('groupCapRefusal', () => {
  const groups: Record<string, LimitGroup> = { push: 'config', apply: 'config', ping: 'diagnostic', show: 'diagnostic', add_node: 'lab' };
  const groupOf = (t: string) => groups[t];
  const caps = L({ max_device_config_calls: 2, max_diagnostic_calls: 3 });
  const rows: [string, string, LimitGroup, Record<string, number>, RequestLimits, string | undefined][] = [
    ['under the config cap: runs', 'push', 'config', { push: 1, ping: 9 }, caps, undefined],
    [
      'the config cap counts every config tool, not the others',
      'push',
      'config',
      { push: 1, apply: 1, ping: 9 },
      caps,
      `Device config call limit reached (2/2, max_device_config_calls): push ${NOT_RUN}`,
    ],
    ['under the diagnostic cap: runs', 'ping', 'diagnostic', { ping: 1, show: 1, push: 5 }, caps, undefined],
    [
      'at the diagnostic cap: refused',
      'show',
      'diagnostic',
      { ping: 2, show: 1 },
      caps,
      `Diagnostic call limit reached (3/3, max_diagnostic_calls): show ${NOT_RUN}`,
    ],
    [
      'over the cap (a cap lowered mid-session): refused with the real count',
      'ping',
      'diagnostic',
      { ping: 5 },
      caps,
      `Diagnostic call limit reached (5/3, max_diagnostic_calls): ping ${NOT_RUN}`,
    ],
    ['no cap for the group: runs', 'push', 'config', { push: 50 }, L({ max_diagnostic_calls: 1 }), undefined],
    ['a group without a named cap: runs', 'add_node', 'lab', { add_node: 50 }, caps, undefined],
    ['tools of no group count for none', 'push', 'config', { push: 1, mystery: 5 }, caps, undefined],
  ];
  for (const [name, tool, group, counts, l, want] of rows)
    it(name, () => expect(groupCapRefusal(tool, group, counts, l, groupOf)).toBe(want));
});

describe('the model-facing refusals', () => {
  it('say what was not run and why', () => {
    expect(toolCallLimitMessage(3, 3, 'ping')).toBe(`Tool call limit reached (3/3): ping ${NOT_RUN}`);
    expect(perToolLimitMessage('ping', 2, 2)).toBe(`Tool call limit reached for ping (2/2, --tool-limit ping=2): ping ${NOT_RUN}`);
    expect(iterationLimitMessage(5, 5, 'show')).toBe(`Iteration limit reached (5/5): show ${NOT_RUN}`);
    expect(toolsNotOfferedMessage('show')).toBe(
      'show was not run: this was the last call of the request and offered no tools. Answer with the results you have.',
    );
  });
  it('the wrap-up instruction names the last iteration or the limit', () => {
    expect(wrapUpInstruction('max_iterations')).toBe(
      '\n\n## Limit reached\nThis is the last iteration this request allows. Do not call tools. Answer the user now with what you have, and say what is left undone.',
    );
    expect(wrapUpInstruction('budget')).toBe(
      '\n\n## Limit reached\nThis request reached a limit (budget). Do not call tools. Answer the user now with what you have, and say what is left undone.',
    );
  });
  it('a pending call of an ending run says why it was not executed', () => {
    expect(pendingNotExecutedMessage('aborted')).toBe('aborted: the user stopped the run before this tool call was executed');
    expect(pendingNotExecutedMessage('max_time')).toBe('not executed: the time budget (--max-time) ran out');
    expect(pendingNotExecutedMessage('tool_limit')).toBe('not executed: tool_limit');
  });
});

describe('limitNote', () => {
  const st = { llm_calls: 4, tool_calls: 7 };
  const rows: [string, Parameters<typeof limitNote>, string][] = [
    [
      'iterations (plural)',
      ['max_iterations', L({ max_iterations: 4 }), st],
      '⚠ Stopped: reached the iteration limit (4 LLM calls, --max-iterations 4) before the task was finished. Raise --max-iterations or continue the session to go on.',
    ],
    [
      'iterations (one call)',
      ['max_iterations', L({ max_iterations: 1 }), { llm_calls: 1, tool_calls: 0 }],
      '⚠ Stopped: reached the iteration limit (1 LLM call, --max-iterations 1) before the task was finished. Raise --max-iterations or continue the session to go on.',
    ],
    [
      'tool calls',
      ['max_tool_calls', L({ max_tool_calls: 7 }), st],
      '⚠ Stopped: reached the tool call limit (7 tool calls, --max-tool-calls 7). Some requested calls were not executed; raise --max-tool-calls or continue the session.',
    ],
    [
      'per-tool and group limits, every one named',
      ['tool_limit', L({ tool_limits: { ping: 2, show: 3 }, max_device_config_calls: 1, max_diagnostic_calls: 4 }), st],
      '⚠ Stopped: a per-tool or tool-group limit was reached (--tool-limit ping=2, --tool-limit show=3, max_device_config_calls 1, max_diagnostic_calls 4). Some requested calls were not executed.',
    ],
    [
      'a group limit alone',
      ['tool_limit', L({ max_diagnostic_calls: 4 }), st],
      '⚠ Stopped: a per-tool or tool-group limit was reached (max_diagnostic_calls 4). Some requested calls were not executed.',
    ],
    [
      'time',
      ['max_time', L({ max_time: 30 }), st],
      '⚠ Stopped: the time budget of 30 s (--max-time) ran out; in-flight tool calls were cancelled.',
    ],
    [
      'cost, with what was spent',
      ['max_cost', L({ max_cost: 0.5 }), { ...st, spent_usd: 0.12345678 }],
      '⚠ Stopped: the next LLM call could cost more than is left of the cost limit ($0.5, --max-cost; $0.1235 spent). Raise --max-cost or continue the session.',
    ],
    [
      'cost, spend unknown',
      ['max_cost', L({ max_cost: 2 }), st],
      '⚠ Stopped: the next LLM call could cost more than is left of the cost limit ($2, --max-cost). Raise --max-cost or continue the session.',
    ],
    ...(
      [
        ['agents', 'AGENT_MAX_TOTAL_AGENTS'],
        ['llm_calls', 'AGENT_MAX_LLM_CALLS'],
        ['tokens', 'AGENT_MAX_TOTAL_TOKENS'],
        ['cost', 'AGENT_MAX_TOTAL_COST_USD'],
        ['duration', 'AGENT_MAX_DURATION_SECONDS'],
      ] as const
    ).map(([budget, env]): [string, Parameters<typeof limitNote>, string] => [
      `the tree budget (${budget}) names its variable`,
      ['budget', L(), { ...st, budget }],
      `⚠ Stopped: the task tree's budget ran out (${budget}: ${env}); the tree stops here.`,
    ]),
    [
      'the tree budget, kind unknown',
      ['budget', L(), { ...st, budget: null }],
      "⚠ Stopped: the task tree's budget ran out; the tree stops here.",
    ],
    ['any other reason', ['aborted', L(), st], '⚠ Stopped: aborted.'],
  ];
  for (const [name, args, want] of rows) it(name, () => expect(limitNote(...args)).toBe(want));
});

describe('limitEventMessage', () => {
  const l = L({ max_iterations: 6, max_tool_calls: 9, max_time: 45, max_cost: 1.5 });
  const rows: [string, Parameters<typeof limitEventMessage>, string][] = [
    ['iterations, stop', ['max_iterations', 'stop', l], 'iteration limit (--max-iterations 6) reached; the run stops'],
    [
      'tool calls, wrap-up',
      ['max_tool_calls', 'wrap_up', l],
      'tool call limit (--max-tool-calls 9) reached; the model answers without tools',
    ],
    [
      'tool calls without a limit: the hard ceiling, continue',
      ['max_tool_calls', 'continue', L()],
      'tool call limit (--max-tool-calls 50) crossed; on_limit continue goes on up to 100 iterations and 50 tool calls',
    ],
    ['per-tool', ['tool_limit', 'stop', l], 'per-tool or tool-group limit reached; the run stops'],
    ['time', ['max_time', 'stop', l], 'time limit (--max-time 45 s) reached; the run stops'],
    ['cost', ['max_cost', 'stop', l], 'cost limit (--max-cost 1.5) reached; the run stops'],
    [
      'tree budget with its kind',
      ['budget', 'wrap_up', l, 'tokens'],
      "task tree's budget (tokens: AGENT_MAX_TOTAL_TOKENS) reached; the model answers without tools",
    ],
    ['tree budget, kind unknown', ['budget', 'stop', l, null], "task tree's budget reached; the run stops"],
    ['any other reason by name', ['aborted', 'stop', l], 'aborted reached; the run stops'],
  ];
  for (const [name, args, want] of rows) it(name, () => expect(limitEventMessage(...args)).toBe(want));
});

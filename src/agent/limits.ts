/**
 * Runtime limits (docs/ARCHITECTURE.md, Limits and context): resolved per request from settings, logged, and turned
 * into the messages the model and the user see when one is reached.
 */
import type { Settings } from '../config/schema.js';
import type { RequestLimits } from '../core/api.js';
import type { StoppedReason } from '../core/events.js';
import type { BudgetKind } from './tree/budget.js';
import { GROUP_CAPS } from '../tools/limit-wording.js';

type LimitSettings = Pick<
  Settings,
  | 'max_iterations'
  | 'max_tool_calls'
  | 'max_time'
  | 'tool_limits'
  | 'on_limit'
  | 'max_parallel_tools'
  | 'max_retries_per_tool'
  | 'retry_on_tool_error'
  | 'max_device_config_calls'
  | 'max_diagnostic_calls'
  | 'max_cost'
>;

/** The variable that sets each tree budget (src/agent/tree/budget.ts). */
const BUDGET_VARS: Record<BudgetKind, string> = {
  agents: 'AGENT_MAX_TOTAL_AGENTS',
  llm_calls: 'AGENT_MAX_LLM_CALLS',
  tokens: 'AGENT_MAX_TOTAL_TOKENS',
  cost: 'AGENT_MAX_TOTAL_COST_USD',
  duration: 'AGENT_MAX_DURATION_SECONDS',
};

/** What an absent optional field of RequestLimits means. */
export const LIMIT_DEFAULTS = { max_parallel_tools: 5, max_retries_per_tool: 1, retry_on_tool_error: false } as const;

export function limitsFromSettings(
  s: Partial<LimitSettings> & Pick<LimitSettings, 'max_iterations' | 'tool_limits' | 'on_limit'>,
): RequestLimits {
  return {
    max_iterations: s.max_iterations,
    ...(s.max_tool_calls !== undefined ? { max_tool_calls: s.max_tool_calls } : {}),
    ...(s.max_time !== undefined ? { max_time: s.max_time } : {}),
    ...(s.max_cost !== undefined ? { max_cost: s.max_cost } : {}),
    tool_limits: { ...s.tool_limits },
    on_limit: s.on_limit,
    max_parallel_tools: s.max_parallel_tools ?? LIMIT_DEFAULTS.max_parallel_tools,
    max_retries_per_tool: s.max_retries_per_tool ?? LIMIT_DEFAULTS.max_retries_per_tool,
    retry_on_tool_error: s.retry_on_tool_error ?? LIMIT_DEFAULTS.retry_on_tool_error,
    ...(s.max_device_config_calls !== undefined ? { max_device_config_calls: s.max_device_config_calls } : {}),
    ...(s.max_diagnostic_calls !== undefined ? { max_diagnostic_calls: s.max_diagnostic_calls } : {}),
  };
}

/**
 * Retries a transiently failing call may get. Which failures are retried is src/tools/retry.ts
 * `mayRetry`: retry_on_tool_error adds those after which the target may have acted, never for configuration.
 */
export function toolRetries(l: RequestLimits): number {
  return l.max_retries_per_tool ?? LIMIT_DEFAULTS.max_retries_per_tool;
}

/** What on_limit=continue may cross its limits up to: never more iterations or tool calls than this per run. */
export const HARD_CEILINGS = { max_iterations: 100, max_tool_calls: 50 } as const;

/**
 * The limits a run enforces. Under on_limit=continue the iteration, tool-call, per-tool
 * and group limits are soft: only the hard ceilings stop the run (time and cost are never soft).
 */
export function enforcedLimits(l: RequestLimits): RequestLimits {
  if (l.on_limit !== 'continue') return l;
  const { max_device_config_calls: _c, max_diagnostic_calls: _d, ...rest } = l;
  return { ...rest, max_iterations: HARD_CEILINGS.max_iterations, max_tool_calls: HARD_CEILINGS.max_tool_calls, tool_limits: {} };
}

/**
 * LangGraph counts super-steps: each iteration is llm_call + tools, plus at most two
 * passes of the limit node and the title node. Deriving the recursion limit from the
 * enforced iterations means our own limit always fires first, so GraphRecursionError
 * never reaches the user.
 */
export function recursionLimitFor(limits: RequestLimits): number {
  return enforcedLimits(limits).max_iterations * 2 + 10;
}

/** The limits on a run's own counts (not the tree budget, the clock or the user). */
const RUN_LIMITS: ReadonlySet<StoppedReason> = new Set(['max_iterations', 'max_tool_calls', 'tool_limit']);

/** The next LLM call: with tools, or the run's last one without (a wrap-up or the last allowed iteration). */
export interface CallPlan {
  tools: boolean;
  /** why the call is the run's last: it becomes the stopped_reason */
  last: StoppedReason | null;
}

export function callPlan(s: { reached: StoppedReason | null; llm_calls: number; limits: RequestLimits }): CallPlan {
  if (s.reached) return { tools: false, last: s.reached };
  // under fail the last iteration keeps its tools: a response that still wants them stops the run at once
  if (s.limits.on_limit !== 'fail' && s.llm_calls + 1 >= enforcedLimits(s.limits).max_iterations)
    return { tools: false, last: 'max_iterations' };
  return { tools: true, last: null };
}

/** What the loop knows after an LLM call or a round of tools. */
export interface LoopFacts {
  limit: StoppedReason | null;
  /** the last LLM step offered tools (false: it was tools-free or refused, so it was the last) */
  tools_offered: boolean;
  llm_calls: number;
  limits: RequestLimits;
  /** tool calls of the last AI message without a result */
  pending: number;
  /** the last message is the model's answer with text */
  answered: boolean;
  /** the last message is a tool result the model has not read yet */
  results: boolean;
  /** a sub-agent's run: the tree budget stops it, while the root gets the reserved final call */
  child: boolean;
  /** the user's Esc or --max-time, from the run's signal and clock */
  clock: 'aborted' | 'max_time' | null;
}

export type LimitDecision =
  | { kind: 'tools' }
  /** one more LLM call; callPlan says whether it offers tools */
  | { kind: 'llm' }
  /** the run ends with `reason`; `note`: the user reads limitNote (no answer of the model says it) */
  | { kind: 'end'; reason: StoppedReason; note: boolean };

const end = (reason: StoppedReason, note: boolean): LimitDecision => ({ kind: 'end', reason, note });

/**
 * The loop's one limit and stop decision (pure; table-tested). A tools-free call is
 * always the last: tool calls a model emits without being offered tools never run.
 * Pending calls of an ending run are answered as not run (the graph's limit node).
 */
export function limitDecision(f: LoopFacts): LimitDecision {
  if (f.clock) return end(f.clock, f.clock === 'max_time');
  if (!f.tools_offered) return end(f.limit ?? 'done', !f.answered);
  const reason = f.limit;
  if (reason === null) {
    if (f.results) return { kind: 'llm' };
    if (f.pending === 0) return end('done', false);
    // only under fail can a response of the last iteration still ask for tools
    if (f.llm_calls >= enforcedLimits(f.limits).max_iterations) return end('max_iterations', true);
    return { kind: 'tools' };
  }
  if (reason === 'aborted' || reason === 'max_time') return end(reason, reason === 'max_time');
  if (reason === 'budget') {
    // the tree's budget: a child stops; the root answers with the reserved final call unless it just did
    if (f.child || (f.answered && f.pending === 0)) return end(reason, !f.answered);
    return { kind: 'llm' };
  }
  if (RUN_LIMITS.has(reason)) return f.limits.on_limit === 'fail' ? end(reason, true) : { kind: 'llm' };
  return end(reason, !f.answered);
}

export function describeLimits(l: RequestLimits): Record<string, unknown> {
  return {
    max_iterations: l.max_iterations,
    max_tool_calls: l.max_tool_calls ?? 'unlimited',
    max_time_s: l.max_time ?? 'none',
    max_cost_usd: l.max_cost ?? 'none',
    tool_limits: l.tool_limits,
    on_limit: l.on_limit,
    max_parallel_tools: l.max_parallel_tools ?? LIMIT_DEFAULTS.max_parallel_tools,
    max_retries_per_tool: toolRetries(l),
    retry_on_tool_error: l.retry_on_tool_error ?? LIMIT_DEFAULTS.retry_on_tool_error,
    max_device_config_calls: l.max_device_config_calls ?? 'unlimited',
    max_diagnostic_calls: l.max_diagnostic_calls ?? 'unlimited',
  };
}

/** What the user reads when the run stops at a limit (the final assistant message). */

/** The system prompt's last section for a run's last, tools-free call. */
export function wrapUpInstruction(reason: StoppedReason): string {
  const why = reason === 'max_iterations' ? 'This is the last iteration this request allows' : `This request reached a limit (${reason})`;
  return `\n\n## Limit reached\n${why}. Do not call tools. Answer the user now with what you have, and say what is left undone.`;
}

export function limitNote(
  reason: StoppedReason,
  l: RequestLimits,
  st: { llm_calls: number; tool_calls: number; budget?: BudgetKind | null; spent_usd?: number },
): string {
  switch (reason) {
    case 'max_iterations':
      return `⚠ Stopped: reached the iteration limit (${st.llm_calls} LLM call${st.llm_calls === 1 ? '' : 's'}, --max-iterations ${l.max_iterations}) before the task was finished. Raise --max-iterations or continue the session to go on.`;
    case 'max_tool_calls':
      return `⚠ Stopped: reached the tool call limit (${st.tool_calls} tool calls, --max-tool-calls ${l.max_tool_calls}). Some requested calls were not executed; raise --max-tool-calls or continue the session.`;
    case 'tool_limit':
      return `⚠ Stopped: a per-tool or tool-group limit was reached (${[
        ...Object.entries(l.tool_limits).map(([k, v]) => `--tool-limit ${k}=${v}`),
        ...GROUP_CAPS.filter((g) => l[g.key] !== undefined).map((g) => `${g.key} ${l[g.key]}`),
      ].join(', ')}). Some requested calls were not executed.`;
    case 'max_time':
      return `⚠ Stopped: the time budget of ${l.max_time} s (--max-time) ran out; in-flight tool calls were cancelled.`;
    case 'max_cost':
      return `⚠ Stopped: the next LLM call could cost more than is left of the cost limit ($${l.max_cost}, --max-cost${st.spent_usd !== undefined ? `; $${st.spent_usd.toFixed(4)} spent` : ''}). Raise --max-cost or continue the session.`;
    case 'budget':
      return `⚠ Stopped: the task tree's budget ran out${st.budget ? ` (${st.budget}: ${BUDGET_VARS[st.budget]})` : ''}; the tree stops here.`;
    default:
      return `⚠ Stopped: ${reason}.`;
  }
}

/** The `limit` event's words: what was reached and what the run does about it. */
export function limitEventMessage(
  reason: StoppedReason,
  action: 'stop' | 'wrap_up' | 'continue',
  l: RequestLimits,
  budget?: BudgetKind | null,
): string {
  const what =
    reason === 'max_iterations'
      ? `iteration limit (--max-iterations ${l.max_iterations})`
      : reason === 'max_tool_calls'
        ? `tool call limit (--max-tool-calls ${l.max_tool_calls ?? HARD_CEILINGS.max_tool_calls})`
        : reason === 'tool_limit'
          ? 'per-tool or tool-group limit'
          : reason === 'max_time'
            ? `time limit (--max-time ${l.max_time} s)`
            : reason === 'max_cost'
              ? `cost limit (--max-cost ${l.max_cost})`
              : reason === 'budget'
                ? `task tree's budget${budget ? ` (${budget}: ${BUDGET_VARS[budget]})` : ''}`
                : reason;
  const then =
    action === 'continue'
      ? `crossed; on_limit continue goes on up to ${HARD_CEILINGS.max_iterations} iterations and ${HARD_CEILINGS.max_tool_calls} tool calls`
      : action === 'wrap_up'
        ? 'reached; the model answers without tools'
        : 'reached; the run stops';
  return `${what} ${then}`;
}

/**
 * Runtime limits (docs/ARCHITECTURE.md, Limits and context): resolved per request from settings, logged, and turned
 * into the messages the model and the user see when one is reached.
 */
import type { Settings } from '../config/schema.js';
import type { RequestLimits } from './api.js';
import type { StoppedReason } from './events.js';

export function limitsFromSettings(s: Pick<Settings, 'max_iterations' | 'max_tool_calls' | 'max_time' | 'tool_limits' | 'on_limit'>): RequestLimits {
  return {
    max_iterations: s.max_iterations,
    ...(s.max_tool_calls !== undefined ? { max_tool_calls: s.max_tool_calls } : {}),
    ...(s.max_time !== undefined ? { max_time: s.max_time } : {}),
    tool_limits: { ...s.tool_limits },
    on_limit: s.on_limit,
  };
}

/**
 * LangGraph counts super-steps: each iteration is llm_call + tools, plus the
 * limit handler, the continue pass and the title node. Deriving the recursion
 * limit from max_iterations means our own limit always fires first, so
 * GraphRecursionError never reaches the user.
 */
export function recursionLimitFor(limits: RequestLimits): number {
  return limits.max_iterations * 2 + 10;
}

export function describeLimits(l: RequestLimits): Record<string, unknown> {
  return {
    max_iterations: l.max_iterations,
    max_tool_calls: l.max_tool_calls ?? 'unlimited',
    max_time_s: l.max_time ?? 'none',
    tool_limits: l.tool_limits,
    on_limit: l.on_limit,
  };
}

export function toolCallLimitMessage(count: number, max: number, name: string): string {
  return `Tool call limit reached (${count} calls): this request allows at most ${max} tool calls (--max-tool-calls ${max}). ${name} was not executed; answer with the results you already have.`;
}

export function perToolLimitMessage(name: string, count: number, max: number): string {
  return `Tool call limit reached for ${name} (${count} calls): --tool-limit ${name}=${max}. This call was not executed; answer with the results you already have.`;
}

/** What the user reads when the run stops at a limit (the final assistant message). */
export function limitNote(reason: StoppedReason, l: RequestLimits, st: { llm_calls: number; tool_calls_count: number }): string {
  switch (reason) {
    case 'max_iterations':
      return `⚠ Stopped: reached the iteration limit (${st.llm_calls} LLM call${st.llm_calls === 1 ? '' : 's'}, --max-iterations ${l.max_iterations}) before the task was finished. Raise --max-iterations or continue the session to go on.`;
    case 'max_tool_calls':
      return `⚠ Stopped: reached the tool call limit (${st.tool_calls_count} tool calls, --max-tool-calls ${l.max_tool_calls}). Some requested calls were not executed; raise --max-tool-calls or continue the session.`;
    case 'tool_limit':
      return `⚠ Stopped: a per-tool limit was reached (--tool-limit ${Object.entries(l.tool_limits).map(([k, v]) => `${k}=${v}`).join(', ')}). Some requested calls were not executed.`;
    case 'max_time':
      return `⚠ Stopped: the time budget of ${l.max_time} s (--max-time) ran out; in-flight tool calls were cancelled.`;
    default:
      return `⚠ Stopped: ${reason}.`;
  }
}

export function pendingNotExecutedMessage(reason: StoppedReason): string {
  switch (reason) {
    case 'aborted':
      return 'aborted: the user stopped the run before this tool call was executed';
    case 'max_time':
      return 'not executed: the time budget (--max-time) ran out';
    case 'max_iterations':
      return 'not executed: the iteration limit (--max-iterations) was reached';
    default:
      return `not executed: ${reason}`;
  }
}

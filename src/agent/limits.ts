/**
 * Runtime limits (docs/ARCHITECTURE.md, Limits and context): resolved per request from settings, logged, and turned
 * into the messages the model and the user see when one is reached.
 */
import type { Settings } from '../config/schema.js';
import type { RequestLimits } from '../core/api.js';
import type { StoppedReason } from '../core/events.js';

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
>;

/** What an absent optional field of RequestLimits means. */
export const LIMIT_DEFAULTS = { max_parallel_tools: 5, max_retries_per_tool: 1, retry_on_tool_error: true } as const;

export function limitsFromSettings(
  s: Partial<LimitSettings> & Pick<LimitSettings, 'max_iterations' | 'tool_limits' | 'on_limit'>,
): RequestLimits {
  return {
    max_iterations: s.max_iterations,
    ...(s.max_tool_calls !== undefined ? { max_tool_calls: s.max_tool_calls } : {}),
    ...(s.max_time !== undefined ? { max_time: s.max_time } : {}),
    tool_limits: { ...s.tool_limits },
    on_limit: s.on_limit,
    max_parallel_tools: s.max_parallel_tools ?? LIMIT_DEFAULTS.max_parallel_tools,
    max_retries_per_tool: s.max_retries_per_tool ?? LIMIT_DEFAULTS.max_retries_per_tool,
    retry_on_tool_error: s.retry_on_tool_error ?? LIMIT_DEFAULTS.retry_on_tool_error,
    ...(s.max_device_config_calls !== undefined ? { max_device_config_calls: s.max_device_config_calls } : {}),
    ...(s.max_diagnostic_calls !== undefined ? { max_diagnostic_calls: s.max_diagnostic_calls } : {}),
  };
}

/** Retries a transiently failing call gets: 0 when retry_on_tool_error is off. */
export function toolRetries(l: RequestLimits): number {
  return l.retry_on_tool_error === false ? 0 : (l.max_retries_per_tool ?? LIMIT_DEFAULTS.max_retries_per_tool);
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
    max_parallel_tools: l.max_parallel_tools ?? LIMIT_DEFAULTS.max_parallel_tools,
    max_retries_per_tool: toolRetries(l),
    max_device_config_calls: l.max_device_config_calls ?? 'unlimited',
    max_diagnostic_calls: l.max_diagnostic_calls ?? 'unlimited',
  };
}

const notRun = (name: string) => `${name} was not run. Answer with the results you have.`;

/** The ToolMessage of a call refused by --max-tool-calls (the model reads it and answers). */
export function toolCallLimitMessage(count: number, max: number, name: string): string {
  return `Tool call limit reached (${count}/${max}): ${notRun(name)}`;
}

export function perToolLimitMessage(name: string, count: number, max: number): string {
  return `Tool call limit reached for ${name} (${count}/${max}, --tool-limit ${name}=${max}): ${notRun(name)}`;
}

/** The last iteration's calls when --max-iterations is used up. */
export function iterationLimitMessage(count: number, max: number, name: string): string {
  return `Iteration limit reached (${count}/${max}): ${notRun(name)}`;
}

/** Named caps on tool groups: config-changing tools (risk `config`) and read-only diagnostics (risk `read`). */
const GROUP_CAPS = [
  { key: 'max_device_config_calls', risk: 'config', label: 'Device config call limit' },
  { key: 'max_diagnostic_calls', risk: 'read', label: 'Diagnostic call limit' },
] as const;

/**
 * The refusal message when a call of tool `name` (of group `risk`) would go over
 * its group's cap, given the calls run so far per tool; undefined when it may run.
 */
export function groupCapRefusal(
  name: string,
  risk: string,
  counts: Record<string, number>,
  l: RequestLimits,
  riskOf: (tool: string) => string | undefined,
): string | undefined {
  for (const g of GROUP_CAPS) {
    const max = l[g.key];
    if (g.risk !== risk || max === undefined) continue;
    const used = Object.entries(counts).reduce((n, [tool, c]) => n + (riskOf(tool) === risk ? c : 0), 0);
    if (used >= max) return `${g.label} reached (${used}/${max}, ${g.key}): ${notRun(name)}`;
  }
  return undefined;
}

/** What the user reads when the run stops at a limit (the final assistant message). */
export function limitNote(reason: StoppedReason, l: RequestLimits, st: { llm_calls: number; tool_calls_count: number }): string {
  switch (reason) {
    case 'max_iterations':
      return `⚠ Stopped: reached the iteration limit (${st.llm_calls} LLM call${st.llm_calls === 1 ? '' : 's'}, --max-iterations ${l.max_iterations}) before the task was finished. Raise --max-iterations or continue the session to go on.`;
    case 'max_tool_calls':
      return `⚠ Stopped: reached the tool call limit (${st.tool_calls_count} tool calls, --max-tool-calls ${l.max_tool_calls}). Some requested calls were not executed; raise --max-tool-calls or continue the session.`;
    case 'tool_limit':
      return `⚠ Stopped: a per-tool or tool-group limit was reached (${[
        ...Object.entries(l.tool_limits).map(([k, v]) => `--tool-limit ${k}=${v}`),
        ...GROUP_CAPS.filter((g) => l[g.key] !== undefined).map((g) => `${g.key} ${l[g.key]}`),
      ].join(', ')}). Some requested calls were not executed.`;
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
    default:
      return `not executed: ${reason}`;
  }
}

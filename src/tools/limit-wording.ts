/**
 * The words of a call that is not run: the gate's refusals at the request's limits
 * (max_tool_calls, a per-tool limit, a named group cap) and the answers the loop gives
 * the calls a stopped or ending run leaves unexecuted. The model reads them as the
 * call's result; the exact words are what the user sees (docs/agent.md).
 */
import type { RequestLimits } from '../core/api.js';
import type { StoppedReason } from '../core/events.js';
import type { LimitGroup } from './types.js';

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

/** Named caps on limit groups (src/tools/types.ts LimitGroup): config-changing device tools and diagnostics. */
export const GROUP_CAPS = [
  { key: 'max_device_config_calls', group: 'config', label: 'Device config call limit' },
  { key: 'max_diagnostic_calls', group: 'diagnostic', label: 'Diagnostic call limit' },
] as const;

/**
 * The refusal message when a call of tool `name` (of limit group `group`) would go over
 * its group's cap, given the request's calls so far per tool; undefined when it may run.
 */
export function groupCapRefusal(
  name: string,
  group: LimitGroup,
  counts: Record<string, number>,
  l: RequestLimits,
  groupOf: (tool: string) => LimitGroup | undefined,
): string | undefined {
  for (const g of GROUP_CAPS) {
    const max = l[g.key];
    if (g.group !== group || max === undefined) continue;
    const used = Object.entries(counts).reduce((n, [tool, c]) => n + (groupOf(tool) === group ? c : 0), 0);
    if (used >= max) return `${g.label} reached (${used}/${max}, ${g.key}): ${notRun(name)}`;
  }
  return undefined;
}

/** A call the model made in a response that offered it no tools (it is never run). */
export function toolsNotOfferedMessage(name: string): string {
  return `${name} was not run: this was the last call of the request and offered no tools. Answer with the results you have.`;
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

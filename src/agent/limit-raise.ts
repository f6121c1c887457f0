/**
 * Raising a reached limit in place (the TUI): which limit a refused call hit, the value
 * it would be raised to (half again, within the setting's range), and asking the user.
 * `y` raises it for the running request, `a` for the session too, `n` answers with what
 * the run has (as on_limit warn). Without an asker (one-shot, MCP) on_limit decides.
 */
import { randomUUID } from 'node:crypto';
import type { LimitAsker, LimitRaiseRequest, RequestLimits } from '../core/api.js';
import type { LimitGroup } from '../tools/types.js';
import type { LimitStop } from '../tools/gate.js';
import type { Logger } from '../log.js';
import type { QuestionTurn } from './session/questions.js';

/** What the session does with a raise: asks the user, and keeps a raise "for this session". */
export interface LimitRaiser {
  /**
   * Runs `question` when the user is not being asked anything else. Parallel runs of a
   * request may reach a limit together: each decides what to ask only in its turn, so a raise
   * the run before it got is seen, not asked about again with stale numbers.
   */
  turn: QuestionTurn;
  /** asks the user (only inside `turn`) */
  ask: LimitAsker;
  keep(patch: Partial<RequestLimits>): void;
}

/** the top of each limit's range (src/config/schema.ts) */
const TOP = { max_iterations: 100, max_tool_calls: 50, per_tool: 1000, group: 1000, max_cost: 1000 } as const;

/** half again (at least one more), within the range; undefined when the limit is at its top */
export function raisedValue(max: number, top: number): number | undefined {
  if (max >= top) return undefined;
  return Math.min(top, max + Math.max(1, Math.ceil(max / 2)));
}

export interface RaiseTarget {
  label: string;
  used: number;
  max: number;
  raise_to: number;
  unit?: 'usd';
  patch: Partial<RequestLimits>;
}

/** The limit a refused call of `name` hit (the gate checks them in this order) and its raise. */
export function toolRaiseTarget(
  stop: LimitStop,
  name: string,
  group: LimitGroup,
  limits: RequestLimits,
  c: { count: number; counts: Record<string, number> },
  groupOf: (tool: string) => LimitGroup | undefined,
): RaiseTarget | undefined {
  if (stop === 'max_tool_calls') {
    const max = limits.max_tool_calls;
    const to = max === undefined ? undefined : raisedValue(max, TOP.max_tool_calls);
    return max === undefined || to === undefined
      ? undefined
      : { label: 'Tool call limit', used: c.count, max, raise_to: to, patch: { max_tool_calls: to } };
  }
  const perTool = limits.tool_limits[name];
  const used = c.counts[name] ?? 0;
  if (perTool !== undefined && used >= perTool) {
    const to = raisedValue(perTool, TOP.per_tool);
    return to === undefined
      ? undefined
      : {
          label: `Tool call limit for ${name}`,
          used,
          max: perTool,
          raise_to: to,
          patch: { tool_limits: { ...limits.tool_limits, [name]: to } },
        };
  }
  const key = group === 'config' ? 'max_device_config_calls' : group === 'diagnostic' ? 'max_diagnostic_calls' : undefined;
  const max = key ? limits[key] : undefined;
  if (!key || max === undefined) return undefined;
  const to = raisedValue(max, TOP.group);
  const inGroup = Object.entries(c.counts).reduce((n, [t, k]) => n + (groupOf(t) === group ? k : 0), 0);
  return to === undefined
    ? undefined
    : {
        label: group === 'config' ? 'Device config call limit' : 'Diagnostic call limit',
        used: inGroup,
        max,
        raise_to: to,
        patch: { [key]: to },
      };
}

/** Whether two sets of limits are alike in every limit a user can raise (tool_limits entry by entry). */
export function sameLimits(a: RequestLimits, b: RequestLimits): boolean {
  const keys = ['max_iterations', 'max_tool_calls', 'max_device_config_calls', 'max_diagnostic_calls', 'max_cost'] as const;
  if (keys.some((k) => a[k] !== b[k])) return false;
  const names = new Set([...Object.keys(a.tool_limits), ...Object.keys(b.tool_limits)]);
  return [...names].every((n) => a.tool_limits[n] === b.tool_limits[n]);
}

export function iterationRaiseTarget(limits: RequestLimits, llmCalls: number): RaiseTarget | undefined {
  const to = raisedValue(limits.max_iterations, TOP.max_iterations);
  return to === undefined
    ? undefined
    : { label: 'Iteration limit', used: llmCalls, max: limits.max_iterations, raise_to: to, patch: { max_iterations: to } };
}

/**
 * The cost limit a call's worst case would cross: raised by half again, or further when the
 * call needs more (to the cent above what it needs), within the setting's range.
 */
export function costRaiseTarget(meter: { spent: number; committed: number; max: number }, worst: number): RaiseTarget | undefined {
  const need = meter.committed + worst;
  // cents counted after rounding away float noise (0.2 × 1.5 × 100 is 30.000000000000004, not 31 cents)
  const cents = Math.ceil(Number((Math.max(meter.max * 1.5, need) * 100).toFixed(6)));
  const to = Math.min(TOP.max_cost, cents / 100);
  if (meter.max >= TOP.max_cost || to < need) return undefined;
  return { label: 'Cost limit', used: meter.spent, max: meter.max, raise_to: to, unit: 'usd', patch: { max_cost: to } };
}

/** The run (root or sub-agent) that reached a limit: its request's declined limits, its signal, its agent. */
export interface RaiseRun {
  counters: { declined: Set<string> };
  signal: AbortSignal;
  agent?: { id: string } | undefined;
}

/**
 * Asks once per limit and request: a declined limit (`declined`, shared by the request's
 * runs) is not asked again. Returns the raised limits, or undefined (answer with what you have).
 */
export async function askRaise(
  raiser: LimitRaiser,
  t: RaiseTarget,
  limits: RequestLimits,
  run: RaiseRun,
  log: Logger,
): Promise<RequestLimits | undefined> {
  const { declined } = run.counters;
  if (declined.has(t.label) || run.signal.aborted) return undefined;
  const req: LimitRaiseRequest = {
    id: randomUUID(),
    label: t.label,
    used: t.used,
    max: t.max,
    raise_to: t.raise_to,
    ...(t.unit ? { unit: t.unit } : {}),
    ...(run.agent ? { agent_id: run.agent.id } : {}),
  };
  const answer = await raiser.ask(req, run.signal);
  if (answer === 'no' || run.signal.aborted) {
    declined.add(t.label);
    return undefined;
  }
  log.info('limit raised by the user', { limit: t.label, from: t.max, to: t.raise_to });
  if (answer === 'session') raiser.keep(t.patch);
  return { ...limits, ...t.patch };
}

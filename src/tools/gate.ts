/**
 * The tool gate: what happens to one tool call the model asked for, decided before
 * anything runs. Pure (no I/O, no LangChain): the graph's tools node asks it per call,
 * then only asks the approver (`ask`) and executes (`run`). docs/ARCHITECTURE.md, Tools.
 *
 * Order (the first that applies wins): the run was stopped → aborted; outside a
 * sub-agent's frozen tool set or the copilot mode's set → blocked; oversized or
 * non-JSON arguments → error; max_tool_calls, per-tool and named group caps → limit;
 * the approval policy → run, ask or blocked.
 */
import type { RequestLimits } from '../core/api.js';
import type { StoppedReason, ToolStatus } from '../core/events.js';
import type { CopilotMode } from '../core/modes.js';
import { groupCapRefusal, pendingNotExecutedMessage, perToolLimitMessage, toolCallLimitMessage } from '../agent/limits.js';
import { OVERSIZED_ARGS_KEY, oversizedArgsMessage } from '../agent/input-limits.js';
import type { ToolRisk } from './types.js';

export type ApprovePolicy = 'never' | 'ask' | 'config' | 'all';

/** Marker of a call whose arguments were not valid JSON (the raw text is its value). */
export const INVALID_ARGS_KEY = '__invalid_arguments';

export interface GateCall {
  name: string;
  args: Record<string, unknown>;
}

/** The tool lookups the gate needs; the ToolRegistry is one. */
export interface GateTools {
  get(name: string): { name: string; risk: ToolRisk } | undefined;
  allowed(mode: CopilotMode, name: string): boolean;
  forMode(mode: CopilotMode): { name: string }[];
}

/** What the approval policy needs to know; the approver itself stays with the caller. */
export interface ApprovalRules {
  policy: ApprovePolicy;
  approvalTools: readonly string[];
  /** tools the user allowed for the rest of the session */
  sessionAllowed: ReadonlySet<string>;
  /** an interactive front end (wording of a refusal only) */
  interactive: boolean;
  /** somebody can be asked (the TUI's approver, an MCP client's elicitation) */
  approver?: unknown;
}

/** The request so far: calls already let through count against the limits. */
export interface GateState {
  mode: CopilotMode;
  limits: RequestLimits;
  /** tool calls let through in this request, in all and per tool */
  count: number;
  counts: Readonly<Record<string, number>>;
  /** set once the run was stopped (user abort or --max-time): nothing more starts */
  stopped?: StoppedReason;
}

export interface GatePolicy {
  tools: GateTools;
  approval: ApprovalRules;
  /** a sub-agent's frozen tool set (absent: the mode's tools) */
  frozen?: ReadonlySet<string>;
}

export type LimitStop = Extract<StoppedReason, 'max_tool_calls' | 'tool_limit'>;

export type GateVerdict =
  | { kind: 'run' }
  /** needs approval and somebody can give it: the caller asks, then runs or blocks */
  | { kind: 'ask' }
  /** not run; the model reads `reason` as the result with this status */
  | { kind: 'blocked'; status: Extract<ToolStatus, 'blocked' | 'error' | 'aborted'>; reason: string; needsApproval?: true }
  /** refused by a count limit; `stop` is the limit the request then reports */
  | { kind: 'limit'; reason: string; stop: LimitStop };

const blocked = (reason: string): GateVerdict => ({ kind: 'blocked', status: 'blocked', reason });
const invalid = (reason: string): GateVerdict => ({ kind: 'blocked', status: 'error', reason });

export function assessCall(call: GateCall, state: GateState, policy: GatePolicy): GateVerdict {
  if (state.stopped) return { kind: 'blocked', status: 'aborted', reason: pendingNotExecutedMessage(state.stopped) };
  const { frozen, tools } = policy;
  if (frozen && !frozen.has(call.name))
    return blocked(`tool "${call.name}" is not in this sub-agent's tool set; it was not executed. Available: ${[...frozen].join(', ')}`);
  const def = tools.get(call.name);
  if (!def || !tools.allowed(state.mode, call.name)) {
    const available = tools
      .forMode(state.mode)
      .map((t) => t.name)
      .join(', ');
    return blocked(`tool "${call.name}" is not available in ${state.mode} mode; it was not executed. Available: ${available}`);
  }
  if (OVERSIZED_ARGS_KEY in call.args) return invalid(oversizedArgsMessage(call.name, Number(call.args[OVERSIZED_ARGS_KEY])));
  if (INVALID_ARGS_KEY in call.args)
    return invalid(`arguments for ${call.name} were not valid JSON; send a JSON object matching the schema`);
  const refusal = limitRefusal(call.name, def.risk, state, tools);
  if (refusal) return refusal;
  return approvalVerdict(def, policy.approval);
}

function limitRefusal(name: string, risk: ToolRisk, state: GateState, tools: GateTools): GateVerdict | undefined {
  const { limits, count, counts } = state;
  const max = limits.max_tool_calls;
  if (max !== undefined && count >= max) return { kind: 'limit', reason: toolCallLimitMessage(count, max, name), stop: 'max_tool_calls' };
  const perTool = limits.tool_limits[name];
  const used = counts[name] ?? 0;
  if (perTool !== undefined && used >= perTool)
    return { kind: 'limit', reason: perToolLimitMessage(name, used, perTool), stop: 'tool_limit' };
  const group = groupCapRefusal(name, risk, counts, limits, (n) => tools.get(n)?.risk);
  return group ? { kind: 'limit', reason: group, stop: 'tool_limit' } : undefined;
}

/**
 * The approval policy for one tool. `read`/`lab` tools run unless listed in
 * approval_tools; for the others:
 * never  – blocked, with how to allow it
 * ask    – the approver decides; without one, blocked
 * config – config-risk tools run; `approval_tools` extras ask (or block without an approver)
 * all    – everything runs
 */
export function approvalVerdict(def: { name: string; risk: ToolRisk }, a: ApprovalRules): GateVerdict {
  const needsApproval = def.risk === 'config' || a.approvalTools.includes(def.name);
  if (!needsApproval || a.policy === 'all') return { kind: 'run' };
  if (a.policy === 'config' && def.risk === 'config') return { kind: 'run' };
  if (a.sessionAllowed.has(def.name)) return { kind: 'run' };
  const what = def.risk === 'config' ? 'changes device configuration or traffic' : 'is on the approval list (approval_tools)';
  const allowWith = def.risk === 'config' ? 'config' : 'all';
  const refuse = (reason: string): GateVerdict => ({ kind: 'blocked', status: 'blocked', reason, needsApproval: true });
  if (a.policy === 'ask' || (a.policy === 'config' && a.approver)) {
    if (a.approver) return { kind: 'ask' };
    return refuse(`${def.name} ${what} and needs approval, but nobody can approve in this run: rerun with --approve ${allowWith}`);
  }
  const how = def.risk === 'config' ? '--approve config (or --approve all)' : '--approve all';
  return refuse(
    a.interactive
      ? `${def.name} ${what} and the approval policy is "${a.policy}": allow it with --approve ask|${allowWith}`
      : `${def.name} ${what} and needs approval, which a one-shot run cannot ask for: rerun with ${how} to allow it`,
  );
}

/**
 * The tool gate: what happens to one tool call the model asked for, decided before
 * anything runs. Pure (no I/O, no LangChain): the dispatch (./dispatch.ts) asks it per
 * call, then only asks the approver (`ask`) and executes (`run`). docs/ARCHITECTURE.md, Tools.
 *
 * Order (the first that applies wins): the run was stopped → aborted; outside the
 * caller's visible tools (a sub-agent's frozen set, the copilot mode's set, the review
 * gate's narrowing while reports await review) → blocked;
 * oversized or non-JSON arguments → error; max_tool_calls, per-tool and named group
 * caps → limit; the approval policy → run, ask or refused.
 *
 * A refusal for want of approval is data (`why`, `allowWith`), not a sentence: the CLI
 * and the MCP server each tell their user how to allow it in their own words.
 */
import type { RequestLimits } from '../core/api.js';
import type { Caller } from '../core/caller.js';
import type { ApprovalWhy, StoppedReason, ToolErrorCode, ToolStatus } from '../core/events.js';
import type { CopilotMode } from '../core/modes.js';
import { groupCapRefusal, pendingNotExecutedMessage, perToolLimitMessage, toolCallLimitMessage } from './limit-wording.js';
import { OVERSIZED_ARGS_KEY, oversizedArgsMessage } from './input-limits.js';
import { limitGroupOf, type LimitGroup, type ToolDef, type ToolRisk } from './types.js';
import type { AllowanceCheck } from './allowances.js';

export type ApprovePolicy = 'never' | 'ask' | 'config' | 'all';

/** Marker of a call whose arguments were not valid JSON (the raw text is its value). */
export const INVALID_ARGS_KEY = '__invalid_arguments';

export interface GateCall {
  name: string;
  args: Record<string, unknown>;
}

/** The tool lookups the gate needs; the ToolRegistry is one. */
export interface GateTools {
  get(name: string): ToolDef | undefined;
  /** the tools this caller may use in this mode (ToolRegistry.visible) */
  visible(mode: CopilotMode, caller: Caller): { name: string }[];
}

/** What the approval policy needs to know; the approver itself stays with the caller. */
export interface ApprovalRules {
  policy: ApprovePolicy;
  approvalTools: readonly string[];
  /** what the user allowed for the rest of the session, per tool and target (./allowances.ts) */
  allowances: AllowanceCheck;
  /** an interactive front end (the TUI): a refusal tells how to allow it there */
  interactive: boolean;
  /** somebody can be asked now (the TUI's approver, an MCP client with elicitation) */
  canAsk: boolean;
}

/** The request so far: calls already let through count against the limits. */
export interface GateState {
  mode: CopilotMode;
  caller: Caller;
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
}

export type LimitStop = Extract<StoppedReason, 'max_tool_calls' | 'tool_limit'>;

export interface ApprovalNeed {
  why: ApprovalWhy;
  /** the least permissive --approve policy that lets it run without asking */
  allowWith: Extract<ApprovePolicy, 'config' | 'all'>;
}

/** A call refused for want of approval, for the front end to word (src/agent/refusal-text.ts, src/mcp/server/refusal-text.ts). */
export interface ApprovalRefusal extends ApprovalNeed {
  tool: string;
  policy: ApprovePolicy;
  /**
   * policy: `--approve never` refuses without asking;
   * no_asker: the policy would ask but nobody can answer here.
   */
  cause: 'policy' | 'no_asker';
  interactive: boolean;
}

export type GateVerdict =
  /** runs; `def` is the definition the gate judged, so execution cannot look up a different (or vanished) one */
  | { kind: 'run'; def: ToolDef }
  /** needs approval and somebody can give it: the caller asks, then runs or refuses */
  | { kind: 'ask'; def: ToolDef; need: ApprovalNeed }
  /** not run for want of approval; the front end words `refusal` for the model */
  | { kind: 'refused'; refusal: ApprovalRefusal }
  /** not run; the model reads `reason` as the result with this status, programs read `code` */
  | {
      kind: 'blocked';
      status: Extract<ToolStatus, 'blocked' | 'error' | 'aborted'>;
      reason: string;
      code: Extract<ToolErrorCode, 'not_available' | 'invalid_arguments' | 'stopped'>;
    }
  /** refused by a count limit; `stop` is the limit the request then reports */
  | { kind: 'limit'; reason: string; stop: LimitStop };

const blocked = (reason: string): GateVerdict => ({ kind: 'blocked', status: 'blocked', reason, code: 'not_available' });
const invalid = (reason: string): GateVerdict => ({ kind: 'blocked', status: 'error', reason, code: 'invalid_arguments' });

export function assessCall(call: GateCall, state: GateState, policy: GatePolicy): GateVerdict {
  if (state.stopped) return { kind: 'blocked', status: 'aborted', reason: pendingNotExecutedMessage(state.stopped), code: 'stopped' };
  const { tools } = policy;
  const visible = tools.visible(state.mode, state.caller).map((t) => t.name);
  const def = visible.includes(call.name) ? tools.get(call.name) : undefined;
  if (!def) {
    const pending = state.caller.pendingReviews;
    if (pending?.length && state.caller.kind === 'agent' && tools.get(call.name))
      return blocked(
        `reports of your sub-agents await your review (${pending.join(', ')}): until you call review_task for each, only review_task and read-only tools run; ${call.name} was not executed`,
      );
    const frozen = state.caller.tools;
    if (frozen && !frozen.has(call.name))
      return blocked(`tool "${call.name}" is not in this sub-agent's tool set; it was not executed. Available: ${visible.join(', ')}`);
    return blocked(`tool "${call.name}" is not available in ${state.mode} mode; it was not executed. Available: ${visible.join(', ')}`);
  }
  if (OVERSIZED_ARGS_KEY in call.args) return invalid(oversizedArgsMessage(call.name, Number(call.args[OVERSIZED_ARGS_KEY])));
  if (INVALID_ARGS_KEY in call.args)
    return invalid(`arguments for ${call.name} were not valid JSON; send a JSON object matching the schema`);
  const refusal = limitRefusal(call.name, limitGroupOf(def), state, tools);
  if (refusal) return refusal;
  return approvalVerdict(def, policy.approval, call.args);
}

function limitRefusal(name: string, group: LimitGroup, state: GateState, tools: GateTools): GateVerdict | undefined {
  // the task tree's bookkeeping never counts against the request's limits
  if (group === 'protocol') return undefined;
  const { limits, count, counts } = state;
  const max = limits.max_tool_calls;
  if (max !== undefined && count >= max) return { kind: 'limit', reason: toolCallLimitMessage(count, max, name), stop: 'max_tool_calls' };
  const perTool = limits.tool_limits[name];
  const used = counts[name] ?? 0;
  if (perTool !== undefined && used >= perTool)
    return { kind: 'limit', reason: perToolLimitMessage(name, used, perTool), stop: 'tool_limit' };
  const capped = groupCapRefusal(name, group, counts, limits, (n) => {
    const d = tools.get(n);
    return d ? limitGroupOf(d) : undefined;
  });
  return capped ? { kind: 'limit', reason: capped, stop: 'tool_limit' } : undefined;
}

/** What a tool needing approval is, after its name: `execute_… changes device configuration or traffic`. */
export const APPROVAL_WHAT: Record<ApprovalWhy, string> = {
  config: 'changes device configuration or traffic',
  approval_list: 'is on the approval list (approval_tools)',
  untrusted_mcp: 'is an untrusted MCP tool (its server is not marked `trust: true` in mcp_servers)',
};

/** A tool of one of the user's MCP servers (`server__tool`, src/mcp/client); built-in names have no `__`. */
export const isMcpServerTool = (name: string): boolean => name.includes('__');

/** Why this tool needs approval, or undefined when it does not. */
export function approvalNeed(def: { name: string; risk: ToolRisk }, approvalTools: readonly string[]): ApprovalNeed | undefined {
  if (def.risk === 'config') return { why: isMcpServerTool(def.name) ? 'untrusted_mcp' : 'config', allowWith: 'config' };
  if (approvalTools.includes(def.name)) return { why: 'approval_list', allowWith: 'all' };
  return undefined;
}

/**
 * The approval policy for one tool. `read`/`lab` tools run unless listed in
 * approval_tools; for the others:
 * never  – refused (never asks, even when somebody could answer)
 * ask    – the approver decides; without one, refused
 * config – config-risk tools run; `approval_tools` extras ask (or are refused without an approver)
 * all    – everything runs
 */
export function approvalVerdict(def: ToolDef, a: ApprovalRules, args: Record<string, unknown>): GateVerdict {
  const need = approvalNeed(def, a.approvalTools);
  if (!need || a.policy === 'all') return { kind: 'run', def };
  if (a.policy === 'config' && need.allowWith === 'config') return { kind: 'run', def };
  // allowed for the session on every target this call names (never on the tool alone when it has targets)
  if (a.allowances.covers(def.name, def.targets?.(args))) return { kind: 'run', def };
  const refused = (cause: ApprovalRefusal['cause']): GateVerdict => ({
    kind: 'refused',
    refusal: { ...need, tool: def.name, policy: a.policy, cause, interactive: a.interactive },
  });
  if (a.policy === 'never') return refused('policy');
  return a.canAsk ? { kind: 'ask', def, need } : refused('no_asker');
}

/**
 * Undoing a recorded fault: its restore call (an injection tool call) goes through
 * the one dispatch (src/tools/dispatch.ts) with the `cli` caller, so the mode gate
 * and the approval policy judge it like any change. `--yes` is the approval;
 * without it the call is refused and the command prints the plan (exit 6).
 */
import { CLI_CALLER } from '../core/caller.js';
import type { CopilotMode } from '../core/modes.js';
import type { Approver } from '../core/api.js';
import type { ApprovalContext } from '../tools/approval.js';
import { dispatchCalls, type DispatchCall } from '../tools/dispatch.js';
import type { ApprovalRefusal, ApprovePolicy } from '../tools/gate.js';
import { DEFAULT_MAX_OUTPUT_CHARS, executeTool, type ToolRegistry } from '../tools/registry.js';
import type { ToolContext, ToolResult } from '../tools/types.js';
import type { Fault, FaultStore } from './store.js';

export interface RestoreOptions {
  mode: CopilotMode;
  /** the user's approval policy; a restore asks unless it is `never` */
  policy: ApprovePolicy;
  approvalTools: readonly string[];
  /** `--yes` */
  approver?: Approver;
}

export type RestoreOutcome =
  | { status: 'restored'; fault: Fault; result: ToolResult }
  | { status: 'blocked'; reason: string; needsApproval: boolean }
  | { status: 'error'; reason: string; result: ToolResult };

const NO_LIMITS = { max_iterations: 1, tool_limits: {}, on_limit: 'fail' as const };

function refusalText(r: ApprovalRefusal): string {
  return r.cause === 'policy'
    ? `${r.tool} needs approval and the approval policy is "never": the restore cannot apply it`
    : `${r.tool} needs approval: rerun with --yes to apply this restore`;
}

/** The restore as the call the dispatch runs: every line is tried, one refused negation must not leave the rest unsent. */
export function restoreCall(f: Fault): DispatchCall {
  const args =
    f.restore.tool === 'execute_multiple_device_config_commands' ? { ...f.restore.args, continue_on_error: true } : f.restore.args;
  return { id: `fault-${f.id}-restore`, name: f.restore.tool, args };
}

export async function restoreFault(
  f: Fault,
  deps: { store: FaultStore; registry: ToolRegistry; ctx: ToolContext },
  o: RestoreOptions,
): Promise<RestoreOutcome> {
  const approval: ApprovalContext = {
    policy: o.policy === 'never' ? 'never' : 'ask',
    approvalTools: o.approvalTools,
    sessionAllowed: new Set<string>(),
    interactive: false,
    canAsk: o.approver !== undefined,
    ...(o.approver ? { approver: o.approver } : {}),
  };
  const { ctx } = deps;
  const out = await dispatchCalls([restoreCall(f)], {
    tools: deps.registry,
    approval,
    mode: o.mode,
    caller: CLI_CALLER,
    limits: NO_LIMITS,
    counter: { count: 0, counts: {} },
    signal: ctx.signal,
    stopped: () => (ctx.signal.aborted ? 'aborted' : undefined),
    wordRefusal: refusalText,
    execute: (def, call) => executeTool(def, call.args, { ...ctx, callId: call.id }, DEFAULT_MAX_OUTPUT_CHARS),
    maxParallel: 1,
  });
  const result = out.results[0]!;
  const reason = (): string => {
    try {
      const j = JSON.parse(result.output) as { error?: unknown };
      return typeof j.error === 'string' ? j.error : (result.display ?? result.output);
    } catch {
      return result.display ?? result.output;
    }
  };
  if (result.status === 'blocked') return { status: 'blocked', reason: reason(), needsApproval: out.approvalBlocked > 0 };
  if (result.status !== 'success') return { status: 'error', reason: result.display ?? reason(), result };
  return { status: 'restored', fault: deps.store.markRestored(f.id), result };
}

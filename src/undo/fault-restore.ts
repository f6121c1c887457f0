/**
 * Undoing a recorded fault: its restore call (an injection tool call) goes through
 * the one dispatch (src/tools/dispatch.ts) with the `cli` caller, so the mode gate
 * and the approval policy judge it like any change. `--yes` is the approval;
 * without it the call is refused and the command prints the plan (exit 6).
 */
import type { CopilotMode } from '../core/modes.js';
import type { Approver } from '../core/api.js';
import { cliApproval, cliRefusalText, dispatchFromCli } from '../tools/cli-dispatch.js';
import type { DispatchCall } from '../tools/dispatch.js';
import type { ApprovePolicy } from '../tools/gate.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { ToolContext, ToolResult } from '../tools/types.js';
import type { Fault, FaultStore } from '../faults/store.js';

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

const refusalText = cliRefusalText('the restore', 'rerun with --yes to apply this restore');

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
  const out = await dispatchFromCli([restoreCall(f)], {
    registry: deps.registry,
    approval: cliApproval({ ...o, interactive: false }),
    mode: o.mode,
    ctx: deps.ctx,
    wordRefusal: refusalText,
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

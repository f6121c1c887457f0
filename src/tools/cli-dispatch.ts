/**
 * The CLI's own changes to the lab (a rewind, a fault restore) go through the one
 * dispatch like the agent's calls: the gate, the user's approval policy and the
 * approver. They are not a model's request, so they run as the `cli` caller with no
 * request limits, and they always ask (or run on `--yes`): only a `never` policy
 * refuses them outright.
 */
import { CLI_CALLER } from '../core/caller.js';
import type { Approver } from '../core/api.js';
import type { CopilotMode } from '../core/modes.js';
import type { ApprovalPreviewer } from '../checkpoints/preview.js';
import type { Checkpointer } from '../checkpoints/batch.js';
import type { ApprovalContext } from './approval.js';
import { SessionAllowances } from './allowances.js';
import { dispatchCalls, type DispatchCall, type DispatchOutcome } from './dispatch.js';
import type { ApprovalRefusal, ApprovePolicy } from './gate.js';
import { DEFAULT_MAX_OUTPUT_CHARS, executeTool, preparer, type ToolRegistry } from './registry.js';
import type { ToolContext } from './types.js';

/** A CLI command's changes are not counted against any request limit. */
export const CLI_LIMITS = { max_iterations: 1, tool_limits: {}, on_limit: 'fail' as const };

export interface CliApprovalOptions {
  /** the user's approval policy */
  policy: ApprovePolicy;
  approvalTools: readonly string[];
  /** who approves (`--yes` in a one-shot, the approval prompt in the TUI); absent: nobody can */
  approver?: Approver;
  interactive: boolean;
}

export function cliApproval(o: CliApprovalOptions): ApprovalContext {
  return {
    policy: o.policy === 'never' ? 'never' : 'ask',
    approvalTools: o.approvalTools,
    allowances: new SessionAllowances(),
    interactive: o.interactive,
    canAsk: o.approver !== undefined,
    ...(o.approver ? { approver: o.approver } : {}),
  };
}

/** A call refused for want of approval, in the words of the command (`what`) and how to rerun it. */
export function cliRefusalText(what: string, rerun: string): (r: ApprovalRefusal) => string {
  return (r) =>
    r.cause === 'policy'
      ? `${r.tool} needs approval and the approval policy is "never": ${what} cannot apply it`
      : `${r.tool} needs approval: ${rerun}`;
}

export interface CliDispatch {
  registry: ToolRegistry;
  approval: ApprovalContext;
  mode: CopilotMode;
  ctx: ToolContext;
  wordRefusal: (r: ApprovalRefusal) => string;
  maxParallel: number;
  previewer?: ApprovalPreviewer;
  /** checkpoints the approved changes under a session (inject --scenario: the project's CLI session) */
  checkpoints?: Checkpointer;
}

export function dispatchFromCli(calls: readonly DispatchCall[], d: CliDispatch): Promise<DispatchOutcome> {
  const { ctx } = d;
  return dispatchCalls(calls, {
    tools: d.registry,
    approval: d.approval,
    mode: d.mode,
    caller: CLI_CALLER,
    limits: CLI_LIMITS,
    counter: { count: 0, counts: {} },
    signal: ctx.signal,
    stopped: () => (ctx.signal.aborted ? 'aborted' : undefined),
    wordRefusal: d.wordRefusal,
    execute: (def, call) => executeTool(def, call.args, { ...ctx, callId: call.id }, DEFAULT_MAX_OUTPUT_CHARS),
    prepare: preparer((_def, call) => ({ ...ctx, callId: call.id }), DEFAULT_MAX_OUTPUT_CHARS),
    maxParallel: d.maxParallel,
    ...(d.previewer ? { previewer: d.previewer } : {}),
    ...(d.checkpoints ? { checkpoints: d.checkpoints } : {}),
  });
}

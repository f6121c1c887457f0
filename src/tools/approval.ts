/**
 * Asking for approval: the one step of a tool call's gate that waits on somebody
 * (the TUI's approver, an MCP client). Whether to ask is the pure gate's call
 * (./gate.ts `approvalVerdict`).
 */
import type { Approver, ApprovalDecision, ApprovalRequest } from '../core/api.js';
import { errorMessage } from '../errors.js';
import type { ApprovalRules } from './gate.js';
import type { SessionAllowances } from './allowances.js';
import type { ToolTargets } from '../core/targets.js';

export interface ApprovalContext extends ApprovalRules {
  approver?: Approver;
  /** an "allow for this session" answer adds the call's tool on its targets */
  allowances: SessionAllowances;
}

export type ApprovalOutcome = { kind: 'allowed'; asked: boolean } | { kind: 'denied'; reason: string };

/** Asks the approver about one call the gate answered `ask` for; `targets` are what an "allow for this session" answer covers. */
export async function askApproval(
  call: ApprovalRequest,
  a: ApprovalContext,
  signal: AbortSignal,
  targets: ToolTargets | undefined,
): Promise<ApprovalOutcome> {
  const deny = (reason: string): ApprovalOutcome => ({ kind: 'denied', reason });
  if (!a.approver) return deny(`${call.name} needs approval, but nobody can approve in this run`);
  let d: ApprovalDecision;
  try {
    d = await a.approver(call, signal);
  } catch (err) {
    return deny(`approval was not given (${errorMessage(err)})`);
  }
  if (d.kind === 'allow_once') return { kind: 'allowed', asked: true };
  if (d.kind === 'allow_session') {
    a.allowances.allow(call.name, targets);
    return { kind: 'allowed', asked: true };
  }
  if (d.kind === 'deny_with_feedback') return deny(`the user denied ${call.name}: ${d.feedback}`);
  return deny(`the user denied ${call.name}; do not retry it, ask the user how to proceed`);
}

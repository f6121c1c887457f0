/**
 * Whether an agent's answer without tool calls completes its run (recursive trees): an
 * answer given while reports await the agent's review is held (the review gate), and the
 * root's candidate final answer is judged by the root Validator, going back to the root
 * with the findings while a round and an iteration are left. Only an answer of a call that
 * offered tools and stayed within the tree budget is a candidate; the root's answer the tree
 * budget ended (its reserved final call, or a call that crossed the budget) is not validated,
 * and the root Validator says so (`skipped`, reason `budget`) instead of saying nothing.
 */
import type { AIMessage, BaseMessage } from '@langchain/core/messages';
import type { Caller } from '../core/caller.js';
import type { AgentStateType } from './state.js';
import type { GraphDeps, RunControl } from './graph-deps.js';
import { enforcedLimits } from './limits.js';
import { messageText } from '../sessions/message-text.js';
import { reviewGateNote, rootValidationNote } from './tree/protocol-notes.js';
import { rootFindings } from './tree/root-validator.js';
import type { ValidationResult } from './tree/validation-result.js';

export interface AnswerToJudge {
  message: AIMessage;
  /** the call offered tools (a wrap-up's answer is the run's last whatever it says) */
  tools: boolean;
  /** the call stayed within the tree budget */
  within: boolean;
  /** the tree budget ended the run at this call: its reserved final call, or one that crossed the budget */
  budgetEnded: boolean;
  caller: Caller;
}

/** What the history gets instead of the bare answer when it does not complete the run; undefined: it stands. */
export interface Judged {
  messages: BaseMessage[];
  root_validations?: number;
}

export async function judgeAnswer(
  deps: Pick<GraphDeps, 'rootValidationRounds'>,
  state: AgentStateType,
  run: RunControl,
  a: AnswerToJudge,
): Promise<Judged | undefined> {
  if ((a.message.tool_calls?.length ?? 0) > 0) return undefined;
  if (!a.tools || !a.within) {
    if (a.budgetEnded) await sayValidationSkipped(state, run, a.message);
    return undefined;
  }
  const iterationLeft = state.llm_calls + 1 < enforcedLimits(state.limits).max_iterations;
  // the review gate: an answer while reports await this agent's review is held while an iteration is left
  const held = a.caller.pendingReviews?.length && iterationLeft ? a.caller.pendingReviews : undefined;
  if (held) {
    run.emit({ type: 'notice', message: `answer held: ${held.length} sub-agent report${held.length === 1 ? '' : 's'} await review` });
    return { messages: [a.message, reviewGateNote(held)] };
  }
  // the root Validator: a candidate final answer completes only once it passes,
  // or when the rounds (root_validation_rounds) or the iterations are used up
  if (run.agent || !run.validateAnswer || run.signal.aborted) return undefined;
  const v = await run.validateAnswer({ messages: [...state.messages, a.message], answer: messageText(a.message), run });
  if (!v) return undefined;
  emitValidation(run, v);
  const rounds = deps.rootValidationRounds ?? 0;
  if (v.verdict !== 'fail' || state.root_validations >= rounds || !iterationLeft || run.signal.aborted) return undefined;
  return {
    messages: [a.message, rootValidationNote(rootFindings(v, state.root_validations + 1, rounds))],
    root_validations: state.root_validations + 1,
  };
}

/** The root's answer the tree budget ended: no root Validator can run, which it says (when the request delegated). */
async function sayValidationSkipped(state: AgentStateType, run: RunControl, message: AIMessage): Promise<void> {
  if (run.agent || !run.validateAnswer || run.signal.aborted) return;
  const v = await run.validateAnswer({ messages: [...state.messages, message], answer: messageText(message), run, skipped: 'budget' });
  if (v) emitValidation(run, v);
}

function emitValidation(run: RunControl, v: ValidationResult): void {
  run.emit({ type: 'validation', verdict: v.verdict, ...(v.reason ? { reason: v.reason } : {}), summary: v.summary, checks: v.checks });
}

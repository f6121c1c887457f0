/**
 * The user answers one question at a time. Parallel sub-agents (recursive children, legacy
 * `agent` calls of one answer) may need an approval or a limit raise at the same moment; the
 * TUI shows one box and its keys answer that box, so a second question asked meanwhile
 * would leave the first run waiting for ever. Questions wait here for their turn; a question
 * whose run was aborted while it waited is not asked.
 */
import type { Approver } from '../../core/api.js';

/** Runs `question` once every question asked before it has been answered. */
export type QuestionTurn = <T>(question: () => Promise<T>) => Promise<T>;

export function questionQueue(): QuestionTurn {
  let tail: Promise<unknown> = Promise.resolve();
  return (question) => {
    const answer = tail.then(question);
    tail = answer.catch(() => undefined);
    return answer;
  };
}

/** The approver, asked in turn; a call aborted while it waited is denied without asking. */
export function approverInTurn(approver: Approver, turn: QuestionTurn): Approver {
  return (req, signal) => turn(() => (signal.aborted ? Promise.resolve({ kind: 'deny' as const }) : approver(req, signal)));
}

/**
 * The user answers one question at a time. Parallel sub-agents (recursive children, flat
 * `agent` calls of one answer) may need an approval or a limit raise at the same moment; the
 * TUI shows one box and its keys answer that box, so a second question asked meanwhile
 * would leave the first run waiting for ever. Questions wait here for their turn.
 */
import type { Approver } from '../../core/api.js';

/**
 * Runs `question` once every question asked before it has been answered, or at once when
 * `signal` (its run's) aborts while it waits: a stopped sub-agent does not wait for the user
 * to answer another run's question, and its question, seeing the abort, asks nothing.
 */
export type QuestionTurn = <T>(question: () => Promise<T>, signal?: AbortSignal) => Promise<T>;

export function questionQueue(): QuestionTurn {
  let tail: Promise<unknown> = Promise.resolve();
  return (question, signal) => {
    const before = tail;
    const answer = turnOrAbort(before, signal).then(question);
    // the next question waits for this one and for every one before it (one that left early on an abort included)
    tail = Promise.all([before, answer.catch(() => undefined)]);
    return answer;
  };
}

function turnOrAbort(before: Promise<unknown>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return before.then(() => undefined);
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const go = () => {
      signal.removeEventListener('abort', go);
      resolve();
    };
    signal.addEventListener('abort', go, { once: true });
    void before.then(go);
  });
}

/** The approver, asked in turn; a call whose run was stopped before its turn is denied without asking. */
export function approverInTurn(approver: Approver, turn: QuestionTurn): Approver {
  return (req, signal) => turn(() => (signal.aborted ? Promise.resolve({ kind: 'deny' as const }) : approver(req, signal)), signal);
}

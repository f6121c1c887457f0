/**
 * A reader that goes away (`gns3-copilot -p … | head`) closes our stdout, and the next write
 * fails with EPIPE. That stops the printing, never a request's bookkeeping: while a request
 * runs, the process boundary (src/cli/process.ts) does not leave at the closed pipe, so the
 * request runs to its end and its answer, usage and title are stored; the process then exits
 * with the request's own code. With no request running it leaves at once, as before.
 */
import { runState } from '../core/run-state.js';

/** Runs a request whose bookkeeping must complete even when the reader of our output is gone. */
export async function whileRequestRuns<T>(fn: () => Promise<T>): Promise<T> {
  const run = runState();
  run.requests++;
  try {
    return await fn();
  } finally {
    run.requests--;
  }
}

export const requestRunning = (): boolean => runState().requests > 0;

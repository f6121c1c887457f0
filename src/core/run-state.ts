/**
 * The state of one command run that the process boundary needs: whether a signal came, whether a
 * request is running or a run holds the exit, the JSON failure printer, --verbose, the LLM retry
 * count. A CLI process runs one command, so this is one object for the process — except in the
 * warm one-shot process (src/boot/warm/), which runs many one-shots at once, each in a state of
 * its own (`inOwnRun`), so that one student's Ctrl-C or closed pipe is not another's.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RunState {
  /** a SIGINT/SIGTERM reached this run: it ends with 130 */
  signalled: boolean;
  /** requests running whose bookkeeping must finish even when the reader of their output is gone (src/output/reader-gone.ts) */
  requests: number;
  /** runs holding the exit after a signal until their restore is done (src/core/interrupt.ts) */
  holds: number;
  /** --verbose / -v on the command line: a stack with an internal error */
  verbose: boolean;
  /** the `llm_retries` setting of this run (src/agent/providers.ts) */
  llmRetries: number;
  /** prints a failure as JSON on stdout when the command line asked for JSON (src/cli/json-failure.ts) */
  jsonFailure?: (exitCode: number, line: string) => Promise<void>;
}

const fresh = (): RunState => ({ signalled: false, requests: 0, holds: 0, verbose: false, llmRetries: 2 });

const processRun = fresh();
const ownRuns = new AsyncLocalStorage<RunState>();

/** The state of the run this code is part of. */
export const runState = (): RunState => ownRuns.getStore() ?? processRun;

/** Runs `fn` (and everything it starts) as a run of its own, with fresh state. */
export function inOwnRun<T>(fn: () => T): T {
  return ownRuns.run(fresh(), fn);
}

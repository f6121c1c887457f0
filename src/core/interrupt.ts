import { runState } from './run-state.js';

/**
 * Ctrl-C / SIGTERM as an abort signal, for the commands that talk to devices: the run stops
 * between steps (and the process then exits 130). `done()` takes the handlers back, for a command
 * that ends while the process goes on (a --watch, a test in the same process).
 */
export function interruptSignal(): { signal: AbortSignal; done(): void } {
  const ac = new AbortController();
  const stop = () => ac.abort('interrupted');
  for (const s of ['SIGINT', 'SIGTERM'] as const) process.once(s, stop);
  return { signal: ac.signal, done: () => ['SIGINT', 'SIGTERM'].forEach((s) => process.off(s, stop)) };
}

/**
 * A run whose work after a signal must finish however long it takes (the eval putting the lab
 * back: cut mid-restore, a device keeps its fault) holds the process boundary's 5 s exit until it
 * releases it (src/cli/process.ts); a second signal still leaves at once.
 */
export function holdExitAfterSignal(): () => void {
  const run = runState();
  run.holds++;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    run.holds--;
  };
}

export const exitHeld = (): boolean => runState().holds > 0;

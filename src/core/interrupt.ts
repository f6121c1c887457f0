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

/**
 * Progress for long tool runs: when the client sent a progressToken, a
 * notification every interval (elapsed seconds; device runs have no known
 * total) and a last one when the call ends.
 */
export type ProgressSink = (p: { progress: number; total?: number; message: string }) => Promise<void>;

export const PROGRESS_INTERVAL_MS = 1_000;

export async function withProgress<T>(sink: ProgressSink | undefined, name: string, run: () => Promise<T>, intervalMs = PROGRESS_INTERVAL_MS): Promise<T> {
  if (!sink) return run();
  const t0 = Date.now();
  const send = (message: string, done = false) => {
    const s = (Date.now() - t0) / 1000;
    sink({ progress: Math.round(s * 10) / 10, ...(done ? { total: Math.round(s * 10) / 10 } : {}), message }).catch(() => undefined);
  };
  send(`${name} started`);
  const timer = setInterval(() => send(`${name} running (${Math.round((Date.now() - t0) / 1000)} s)`), intervalMs);
  try {
    return await run();
  } finally {
    clearInterval(timer);
    send(`${name} finished`, true);
  }
}

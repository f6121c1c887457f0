/**
 * Progress of a tool call over MCP (when the client sent a progressToken): a
 * notification as the call starts, one as each device of a fan-out finishes
 * (total = number of devices), and a heartbeat every interval in between.
 *
 * MCP wants the progress value to grow with every notification: it is the
 * number of finished devices plus t/(t+1) for the t seconds since the last one
 * finished, so it rises during a long command yet stays below the next device.
 */
export type ProgressSink = (p: { progress: number; total?: number; message: string }) => Promise<void>;
export type DeviceProgress = (p: { done: number; total: number; message: string }) => void;

export const PROGRESS_INTERVAL_MS = 1_000;

class Reporter {
  private done = 0;
  private total: number | undefined;
  private since = Date.now();
  private last = -1;
  private readonly t0 = Date.now();

  constructor(private readonly sink: ProgressSink) {}

  send(message: string): void {
    const t = (Date.now() - this.since) / 1000;
    let p = Math.round((this.done + t / (t + 1)) * 1000) / 1000;
    if (p <= this.last) p = Math.round((this.last + 0.001) * 1000) / 1000;
    this.last = p;
    this.sink({ progress: p, ...(this.total !== undefined ? { total: this.total } : {}), message }).catch(() => undefined);
  }

  device: DeviceProgress = (d) => {
    this.done = d.done;
    this.total = d.total;
    this.since = Date.now();
    this.send(d.message);
  };

  elapsed(): number {
    return Math.round((Date.now() - this.t0) / 1000);
  }
}

export async function withProgress<T>(
  sink: ProgressSink | undefined,
  name: string,
  run: (device?: DeviceProgress) => Promise<T>,
  intervalMs = PROGRESS_INTERVAL_MS,
): Promise<T> {
  if (!sink) return run();
  const r = new Reporter(sink);
  r.send(`${name} started`);
  const timer = setInterval(() => r.send(`${name} running (${r.elapsed()} s)`), intervalMs);
  try {
    return await run(r.device);
  } finally {
    clearInterval(timer);
  }
}

/**
 * LLM stream stalls and transport failures, in words:
 * an idle watchdog (no bytes for llm_idle_timeout_ms → retry, then exit 4
 * naming the setting), TLS failures named like the controller's, a connection
 * reset mid-answer said as such, and Retry-After honoured on 429.
 */
import { TLS_CODES, tlsHint } from '../security/tls.js';

export class LlmIdleTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no data from the LLM for ${Math.round(timeoutMs / 100) / 10} s (llm_idle_timeout_ms=${timeoutMs})`);
    this.name = 'LlmIdleTimeoutError';
  }
}

/** Aborts a stream that goes quiet; kick() on every chunk. */
export class IdleWatchdog {
  private readonly ac = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  readonly signal: AbortSignal;
  fired = false;
  constructor(
    private readonly timeoutMs: number | undefined,
    outer: AbortSignal,
  ) {
    this.signal = timeoutMs ? AbortSignal.any([outer, this.ac.signal]) : outer;
    this.kick();
  }
  kick(): void {
    if (!this.timeoutMs) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.fired = true;
      this.ac.abort(new LlmIdleTimeoutError(this.timeoutMs!));
    }, this.timeoutMs);
  }
  stop(): void {
    clearTimeout(this.timer);
  }
  /** The error to report: the idle timeout when it (and not the user) aborted the stream. */
  translate(err: unknown, outer: AbortSignal): unknown {
    return this.fired && !outer.aborted ? new LlmIdleTimeoutError(this.timeoutMs!) : err;
  }
}

interface ErrLike {
  code?: unknown;
  name?: unknown;
  message?: unknown;
  cause?: unknown;
  headers?: unknown;
}

function chain(err: unknown): ErrLike[] {
  const out: ErrLike[] = [];
  let e = err as ErrLike | undefined;
  for (let i = 0; e && typeof e === 'object' && i < 6; i++) {
    out.push(e);
    e = e.cause as ErrLike | undefined;
  }
  return out;
}

/** "TLS handshake failed (is the server plain http?)" / "TLS error CODE (…)", or undefined. */
export function tlsProblem(err: unknown): string | undefined {
  for (const e of chain(err)) {
    const code = typeof e.code === 'string' ? e.code : undefined;
    if (code && TLS_CODES.has(code))
      return tlsHint(code, 'the certificate of the LLM endpoint could not be verified; set NODE_EXTRA_CA_CERTS to trust a private CA');
  }
  return undefined;
}

/** A dropped connection (reset, closed socket, truncated body) rather than an HTTP answer. */
export function isConnectionDrop(err: unknown): boolean {
  return chain(err).some(
    (e) =>
      (typeof e.code === 'string' && /ECONNRESET|EPIPE|UND_ERR_SOCKET|ECONNABORTED/.test(e.code)) ||
      (typeof e.message === 'string' && /terminated|other side closed|socket hang up|premature close|ECONNRESET/i.test(e.message)),
  );
}

/** Retry-After (seconds or HTTP date) or retry-after-ms from an SDK error's headers, in ms. */
export function retryAfterMs(err: unknown): number | undefined {
  for (const e of chain(err)) {
    const h = e.headers as { get?: (k: string) => string | null } | Record<string, string> | undefined;
    if (!h) continue;
    const get = (k: string): string | undefined =>
      typeof (h as { get?: unknown }).get === 'function'
        ? ((h as { get: (k: string) => string | null }).get(k) ?? undefined)
        : (h as Record<string, string>)[k];
    const ms = Number(get('retry-after-ms'));
    if (Number.isFinite(ms) && ms > 0) return ms;
    const ra = get('retry-after');
    if (ra === undefined) continue;
    const s = Number(ra);
    if (Number.isFinite(s) && s >= 0) return s * 1000;
    const at = Date.parse(ra);
    if (Number.isFinite(at)) return Math.max(0, at - Date.now());
  }
  return undefined;
}

/** Waits for `p`, or rejects with `onAbort()` when `signal` fires first (the controller probe under --max-time). */
export function abortable<T>(p: Promise<T>, signal: AbortSignal, onAbort: () => Error): Promise<T> {
  if (signal.aborted) return Promise.reject(onAbort());
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(onAbort());
    signal.addEventListener('abort', stop, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', stop);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', stop);
        reject(err);
      },
    );
  });
}

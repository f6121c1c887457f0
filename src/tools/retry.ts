/**
 * Retries of tool calls that failed transiently (max_retries_per_tool,
 * retry_on_tool_error). Transient means the GNS3 controller could not be reached
 * or answered 5xx: connection refused/reset, a timeout, a server error. A device
 * error, a blocked, refused (limit) or aborted call, bad arguments: never.
 * Retries count against no limit, only against the request's time.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ControllerError } from '../errors.js';
import { Gns3ApiError } from '../gns3/errors.js';
import type { ToolResult } from './types.js';

const TRANSIENT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);
const TRANSIENT_NAMES = new Set(['ConnectTimeoutError', 'HeadersTimeoutError', 'BodyTimeoutError', 'SocketError']);

/** A failure of the controller transport (ControllerError with such a cause) or a controller 5xx. */
export function isTransientError(err: unknown): boolean {
  if (err instanceof Gns3ApiError) return err.status >= 500 && err.status <= 599;
  if (!(err instanceof ControllerError)) return false;
  let e: unknown = err.cause;
  for (let depth = 0; depth < 5 && e && typeof e === 'object'; depth++) {
    const { code, name } = e as { code?: unknown; name?: unknown };
    if (typeof code === 'string' && TRANSIENT_CODES.has(code)) return true;
    if (typeof name === 'string' && TRANSIENT_NAMES.has(name)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** An error result the tool (ToolOutcome.transient) or executeTool marked transient. */
export function isTransientResult(r: ToolResult): boolean {
  return r.status === 'error' && r.transient === true;
}

export interface RetryInfo {
  /** 1 for the first retry */
  attempt: number;
  max_retries: number;
  delay_ms: number;
  error: string;
}

/** Base delay of the exponential backoff (env GNS3_COPILOT_TOOL_RETRY_MS, default 500 ms). */
export function retryBaseDelayMs(env: NodeJS.ProcessEnv = process.env): number {
  const v = Number(env.GNS3_COPILOT_TOOL_RETRY_MS ?? 500);
  return Number.isFinite(v) && v >= 0 ? v : 500;
}

function errorText(r: ToolResult): string {
  return r.display ?? r.output.slice(0, 200);
}

/**
 * Runs `attempt` and repeats it after base·2^(n-1) ms (±20 % jitter) while its
 * result is transient and retries are left. Abort ends the wait at once.
 */
export async function runWithRetries(
  attempt: () => Promise<ToolResult>,
  opts: { retries: number; signal: AbortSignal; baseDelayMs?: number; onRetry(info: RetryInfo): void },
): Promise<ToolResult> {
  const base = opts.baseDelayMs ?? retryBaseDelayMs();
  let r = await attempt();
  for (let n = 1; n <= opts.retries && isTransientResult(r) && !opts.signal.aborted; n++) {
    const delay = Math.round(base * 2 ** (n - 1) * (0.8 + Math.random() * 0.4));
    opts.onRetry({ attempt: n, max_retries: opts.retries, delay_ms: delay, error: errorText(r) });
    try {
      await sleep(delay, undefined, { signal: opts.signal });
    } catch {
      return r;
    }
    r = await attempt();
  }
  return r;
}

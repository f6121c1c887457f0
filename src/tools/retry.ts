/**
 * Retries of tool calls that failed transiently (max_retries_per_tool,
 * retry_on_tool_error). Transient means the GNS3 controller or a device console could
 * not be reached, or the controller answered 5xx: connection refused/reset, a timeout,
 * a server error. A device error, a blocked, refused (limit) or aborted call, bad
 * arguments: never.
 *
 * Which transient failures run again (`mayRetry`): one where nothing reached the target
 * (`unsent`: the connection failed before anything was sent) runs again for any call,
 * whatever retry_on_tool_error — nothing can be repeated. One after which the target may
 * have acted (a timeout, a connection dropped after the request, a 5xx) runs again only
 * for a call that sends no configuration, and only when retry_on_tool_error is on: a
 * config push that timed out half-way is never sent again whole.
 * Retries count against no limit, only against the request's time.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ControllerError } from '../errors.js';
import { Gns3ApiError } from '../gns3/errors.js';
import type { ToolResult, ToolRisk, ToolTargetsFn } from './types.js';

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

/** Failures of opening the connection: the request was never sent. */
const UNSENT_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);
const UNSENT_NAMES = new Set(['ConnectTimeoutError']);

/** Whether the cause chain of a ControllerError has a code or name from these sets. */
function causeIn(err: ControllerError, codes: ReadonlySet<string>, names: ReadonlySet<string>): boolean {
  let e: unknown = err.cause;
  for (let depth = 0; depth < 5 && e && typeof e === 'object'; depth++) {
    const { code, name } = e as { code?: unknown; name?: unknown };
    if (typeof code === 'string' && codes.has(code)) return true;
    if (typeof name === 'string' && names.has(name)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** A failure of the controller transport (ControllerError with such a cause) or a controller 5xx. */
export function isTransientError(err: unknown): boolean {
  if (err instanceof Gns3ApiError) return err.status >= 500 && err.status <= 599;
  return err instanceof ControllerError && causeIn(err, TRANSIENT_CODES, TRANSIENT_NAMES);
}

/** The controller could not be connected to at all: the request never left this process. */
export function isUnsentError(err: unknown): boolean {
  return err instanceof ControllerError && causeIn(err, UNSENT_CODES, UNSENT_NAMES);
}

/** An error result the tool (ToolOutcome.transient) or executeTool marked transient. */
export function isTransientResult(r: ToolResult): boolean {
  return r.status === 'error' && r.transient === true;
}

/**
 * A call that sends configuration: a `config` tool (device configuration, link filters,
 * an untrusted MCP tool), or one whose targets say it changes configuration with lines it sends.
 */
export function sendsConfiguration(def: { risk: ToolRisk; targets?: ToolTargetsFn | null }, args: Record<string, unknown>): boolean {
  if (def.risk === 'config') return true;
  const t = def.targets?.(args);
  return t?.changesConfig === true && (t.devices ?? []).some((d) => d.commands.length > 0);
}

/** Whether this failed result may run again (see the top of this file). */
export function mayRetry(r: ToolResult, call: { sendsConfig: boolean; retryOnToolError: boolean }): boolean {
  if (!isTransientResult(r)) return false;
  if (r.unsent === true) return true;
  return !call.sendsConfig && call.retryOnToolError;
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
 * result may run again and retries are left. Abort ends the wait at once.
 */
export async function runWithRetries(
  attempt: () => Promise<ToolResult>,
  opts: {
    retries: number;
    /** the result may run again (`mayRetry` with the call's facts) */
    retryable: (r: ToolResult) => boolean;
    signal: AbortSignal;
    baseDelayMs?: number;
    onRetry(info: RetryInfo): void;
  },
): Promise<ToolResult> {
  const base = opts.baseDelayMs ?? retryBaseDelayMs();
  let r = await attempt();
  for (let n = 1; n <= opts.retries && opts.retryable(r) && !opts.signal.aborted; n++) {
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

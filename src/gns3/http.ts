/**
 * The HTTP layer under the GNS3 client: one undici Agent per controller with
 * connect/headers/body timeouts, TLS verification (off only with --insecure),
 * bounded retries for idempotent requests, and transport failures mapped to a
 * one-line ControllerError (exit 3).
 */
import type { Dispatcher } from 'undici';
import { Agent, request, errors as undiciErrors } from './undici-parts.js';
import { ControllerError } from '../errors.js';
import type { Logger } from '../log.js';
import { errorBodyMessage, Gns3ApiError } from './errors.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { TLS_CODES, tlsHint } from '../security/tls.js';

export interface HttpOptions {
  /** controller origin plus optional path prefix, no trailing slash, no /v2|/v3 */
  baseUrl: string;
  insecure?: boolean;
  connectTimeoutMs?: number;
  /** max wait for response headers and between body chunks */
  requestTimeoutMs?: number;
  /** attempts for idempotent requests on connection errors / 502-504 (default 3) */
  maxAttempts?: number;
  log?: Logger;
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** overrides the agent's headers/body timeout for this request */
  timeoutMs?: number;
  /** retry on connection errors even for non-GET (caller knows it is idempotent) */
  idempotent?: boolean;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
}

export interface StreamResponse {
  status: number;
  headers: Record<string, string>;
  body: Dispatcher.ResponseData['body'];
}

const INSECURE_WARNING = 'TLS certificate verification of the GNS3 controller is disabled (--insecure)';

/** Removes trailing slashes and a trailing /v2 or /v3 the user may have typed. */
export function normaliseBaseUrl(server: string): string {
  let u: URL;
  try {
    u = new URL(server);
  } catch {
    throw new ControllerError(`Invalid GNS3 server URL: ${server}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new ControllerError(`GNS3 server URL must be http:// or https://: ${server}`);
  }
  let path = u.pathname.replace(/\/+$/, '');
  path = path.replace(/\/v[23]$/i, '');
  return `${u.protocol}//${u.host}${path}`;
}

function headerRecord(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function errCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let i = 0; i < 4 && e && typeof e === 'object'; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && !code.startsWith('UND_ERR')) return code;
    e = (e as { cause?: unknown }).cause;
  }
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** True for failures where the request never reached the server's application. */
function isConnectionError(err: unknown): boolean {
  // A connect timeout already waited connect_timeout_ms; retrying would multiply it.
  if (err instanceof undiciErrors.ConnectTimeoutError) return false;
  const code = errCode(err);
  return code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EPIPE' || code === 'EAI_AGAIN' || code === 'UND_ERR_SOCKET';
}

/** One line that tells the user what is wrong with reaching the controller. */
export function transportError(err: unknown, baseUrl: string, method: string, path: string, timeoutMs: number): Error {
  if (err instanceof ControllerError) return err;
  const where = `GNS3 controller at ${baseUrl}`;
  if (err instanceof undiciErrors.RequestAbortedError || (err as { name?: string })?.name === 'AbortError') {
    const e = new Error('Request aborted');
    e.name = 'AbortError';
    return e;
  }
  if (err instanceof undiciErrors.ConnectTimeoutError) {
    return new ControllerError(`${where} is unreachable: connection timed out`, { cause: err });
  }
  if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError) {
    return new ControllerError(`${where} did not answer ${method} ${path} within ${Math.round(timeoutMs / 100) / 10} s`, {
      cause: err,
    });
  }
  const code = errCode(err);
  if (code && TLS_CODES.has(code)) {
    return new ControllerError(`${where}: ${tlsHint(code, 'use --insecure to skip certificate verification')}`, { cause: err });
  }
  if (code === 'ECONNREFUSED') return new ControllerError(`${where} is unreachable: connection refused`, { cause: err });
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new ControllerError(`${where} is unreachable: unknown host`, { cause: err });
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH')
    return new ControllerError(`${where} is unreachable: no route to host`, { cause: err });
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || err instanceof undiciErrors.SocketError) {
    return new ControllerError(`${where} closed the connection during ${method} ${path}`, { cause: err });
  }
  if (err instanceof undiciErrors.HTTPParserError) {
    return new ControllerError(`${where} did not speak HTTP (is this a GNS3 controller?)`, { cause: err });
  }
  const msg = err instanceof Error ? err.message : String(err);
  return new ControllerError(`${where}: ${msg}`, { cause: err });
}

export class Gns3Http {
  readonly baseUrl: string;
  readonly warnings: string[] = [];
  private readonly agent: Agent;
  private readonly requestTimeoutMs: number;
  private readonly maxAttempts: number;
  private readonly log: Logger | undefined;

  constructor(opts: HttpOptions) {
    this.baseUrl = normaliseBaseUrl(opts.baseUrl);
    this.requestTimeoutMs = opts.requestTimeoutMs ?? 30_000;
    this.maxAttempts = Math.max(1, opts.maxAttempts ?? 3);
    this.log = opts.log;
    const insecure = Boolean(opts.insecure) && this.baseUrl.startsWith('https:');
    if (insecure) {
      this.warnings.push(INSECURE_WARNING);
      this.log?.warn(INSECURE_WARNING, { server: this.baseUrl });
    }
    this.agent = new Agent({
      connect: { timeout: opts.connectTimeoutMs ?? 5_000, ...(insecure ? { rejectUnauthorized: false } : {}) },
      headersTimeout: this.requestTimeoutMs,
      bodyTimeout: this.requestTimeoutMs,
      keepAliveTimeout: 4_000,
    });
  }

  /** the connection pool (with the TLS settings): the notification WebSocket connects through it too */
  get dispatcher(): Dispatcher {
    return this.agent;
  }

  /** requests sent and not answered yet (`GET /v2/projects`): what a run that gave up waiting names */
  readonly inFlight = new Set<string>();

  /** Sends one request and reads the whole body. Throws ControllerError on transport failure only. */
  async send(method: string, path: string, opts: RequestOptions = {}): Promise<HttpResponse> {
    const call = `${method} ${path}`;
    this.inFlight.add(call);
    try {
      return await this.sendOnce(method, path, opts);
    } finally {
      this.inFlight.delete(call);
    }
  }

  private async sendOnce(method: string, path: string, opts: RequestOptions): Promise<HttpResponse> {
    const retryable = method === 'GET' || method === 'HEAD' || opts.idempotent === true;
    const attempts = retryable ? this.maxAttempts : 1;
    let lastErr: unknown;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        const res = await this.dispatch(method, path, opts);
        const text = await res.body.text();
        const out = { status: res.statusCode, headers: headerRecord(res.headers), text };
        // A proxy in front of the controller may answer 502-504 while it restarts.
        if (retryable && attempt < attempts && res.statusCode >= 502 && res.statusCode <= 504) {
          lastErr = undefined;
          await sleep(backoff(attempt), undefined, { signal: opts.signal });
          continue;
        }
        return out;
      } catch (err) {
        lastErr = err;
        if (opts.signal?.aborted) break;
        if (!retryable || attempt >= attempts || !isConnectionError(err)) break;
        this.log?.debug('gns3 request retry', { method, path, attempt, error: String(err) });
        await sleep(backoff(attempt), undefined, { signal: opts.signal });
      }
    }
    throw transportError(lastErr, this.baseUrl, method, path, opts.timeoutMs ?? this.requestTimeoutMs);
  }

  /** Opens a streaming response (pcap); the caller reads and destroys the body. */
  async stream(method: string, path: string, opts: RequestOptions = {}): Promise<StreamResponse> {
    try {
      const res = await this.dispatch(method, path, opts);
      return { status: res.statusCode, headers: headerRecord(res.headers), body: res.body };
    } catch (err) {
      throw transportError(err, this.baseUrl, method, path, opts.timeoutMs ?? this.requestTimeoutMs);
    }
  }

  private dispatch(method: string, path: string, opts: RequestOptions): Promise<Dispatcher.ResponseData> {
    const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    return request(this.baseUrl + path, {
      method: method,
      headers,
      body,
      signal: opts.signal,
      dispatcher: this.agent,
      ...(opts.timeoutMs !== undefined ? { headersTimeout: opts.timeoutMs, bodyTimeout: opts.timeoutMs } : {}),
    });
  }

  async close(): Promise<void> {
    await this.agent.close().catch(() => undefined);
  }
}

function backoff(attempt: number): number {
  return Math.min(2_000, 150 * 2 ** (attempt - 1)) + Math.floor(Math.random() * 50);
}

/** Parses a JSON success body; an empty (204) body gives undefined. */
export function parseJsonBody(res: HttpResponse, method: string, path: string): unknown {
  if (res.text.trim() === '') return undefined;
  try {
    return JSON.parse(res.text);
  } catch {
    const type = res.headers['content-type'] ?? 'unknown type';
    throw new Gns3ApiError(res.status, `the controller sent a non-JSON response (${type.split(';')[0]})`, method, path);
  }
}

/** Throws Gns3ApiError for a non-2xx response. */
export function ensureOk(res: HttpResponse, method: string, path: string): void {
  if (res.status >= 200 && res.status < 300) return;
  throw new Gns3ApiError(res.status, errorBodyMessage(res.status, res.text, res.headers['content-type'] ?? ''), method, path);
}

/**
 * GNS3 controller client: API version (config or /v3→/v2 probe), auth, JSON
 * calls with typed errors, projects and templates. Project-level operations
 * live in ./project.ts (Gns3Project, the ProjectScope implementation).
 */
import type { Dispatcher } from 'undici';
import type { Settings } from '../config/schema.js';
import type { Logger } from '../log.js';
import { Gns3Auth, type Gns3Credentials, type TokenStore } from './auth.js';
import { Gns3ApiError } from './errors.js';
import { ensureOk, Gns3Http, parseJsonBody, type StreamResponse } from './http.js';
import { probeWith } from './probe.js';
import type { RawCompute, RawProject, RawTemplate } from './raw.js';
import { Gns3Project } from './project.js';
import { findProject } from './resolve.js';
import type { ApiVersion, CallOptions, ControllerApi } from './controller.js';

export type { ApiVersion, CallOptions } from './controller.js';

export interface Gns3ClientOptions {
  settings: Pick<Settings, 'server' | 'api_version' | 'insecure' | 'connect_timeout_ms' | 'request_timeout_ms'> & Partial<Settings>;
  log: Logger;
  credentials?: () => Promise<Gns3Credentials | undefined>;
  tokenStore?: TokenStore;
  /** attempts for idempotent requests (default 3) */
  maxAttempts?: number;
}

export class Gns3Client implements ControllerApi {
  readonly http: Gns3Http;
  readonly log: Logger;
  private readonly auth: Gns3Auth;
  private readonly credentials: (() => Promise<Gns3Credentials | undefined>) | undefined;
  private apiVersion: ApiVersion | undefined;
  private detecting: Promise<ApiVersion> | undefined;
  private serverVersion: string | undefined;
  private templatesCache: { at: number; list: RawTemplate[] } | undefined;
  private computesCache: { at: number; list: RawCompute[] } | undefined;

  constructor(opts: Gns3ClientOptions) {
    this.log = opts.log;
    this.http = new Gns3Http({
      baseUrl: opts.settings.server,
      insecure: opts.settings.insecure,
      connectTimeoutMs: opts.settings.connect_timeout_ms,
      requestTimeoutMs: opts.settings.request_timeout_ms,
      maxAttempts: opts.maxAttempts,
      log: opts.log,
    });
    if (opts.settings.api_version !== 'auto') this.apiVersion = opts.settings.api_version;
    this.credentials = opts.credentials;
    this.auth = new Gns3Auth(this.http, opts.credentials, opts.tokenStore, opts.log);
  }

  /** Warnings the UI should show once (e.g. --insecure). */
  get warnings(): readonly string[] {
    return this.http.warnings;
  }

  get baseUrl(): string {
    return this.http.baseUrl;
  }

  /** The API version in use; probes the server once when configured as auto. */
  async api(signal?: AbortSignal): Promise<ApiVersion> {
    if (this.apiVersion) return this.apiVersion;
    this.detecting ??= probeWith(this.http, { signal, credentials: this.credentials }).then(
      (r) => {
        this.apiVersion = r.api;
        this.serverVersion = r.version;
        return r.api;
      },
      (err: unknown) => {
        this.detecting = undefined;
        throw err;
      },
    );
    return this.detecting;
  }

  /** Server version string (probes when not known yet). */
  async version(signal?: AbortSignal): Promise<string> {
    if (this.serverVersion) return this.serverVersion;
    const body = (await this.call('GET', '/version', { signal })) as { version?: string } | undefined;
    this.serverVersion = body?.version ?? 'unknown';
    return this.serverVersion;
  }

  /**
   * One JSON call under /v2 or /v3. `path` starts after the version prefix.
   * Returns the parsed body (undefined for 204). Throws Gns3ApiError / ControllerError.
   */
  async call(method: string, path: string, opts: CallOptions = {}): Promise<unknown> {
    const api = await this.api(opts.signal);
    const full = `/${api}${path}`;
    for (let attempt = 0; ; attempt++) {
      const headers = await this.auth.headers(api, opts.signal);
      const t0 = Date.now();
      const res = await this.http.send(method, full, { ...opts, headers });
      this.log.debug('gns3 request', { method, path: full, status: res.status, ms: Date.now() - t0 });
      if (res.status === 401 && attempt === 0) {
        const msg = safeMessage(res.text);
        if (await this.auth.handleUnauthorized(api, msg, opts.signal)) continue;
      }
      if (res.status === 401) {
        throw new Gns3ApiError(401, `authentication failed: ${safeMessage(res.text)}`, method, full);
      }
      if (opts.okStatuses?.includes(res.status)) return undefined;
      ensureOk(res, method, full);
      return parseJsonBody(res, method, full);
    }
  }

  /** Opens a streaming GET (pcap). The caller checks status and destroys the body. */
  async openStream(path: string, opts: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<StreamResponse & { path: string }> {
    const api = await this.api(opts.signal);
    const full = `/${api}${path}`;
    for (let attempt = 0; ; attempt++) {
      const headers = await this.auth.headers(api, opts.signal);
      const res = await this.http.stream('GET', full, { headers, signal: opts.signal, timeoutMs: opts.timeoutMs });
      if (res.status === 401 && attempt === 0) {
        const text = await res.body.text().catch(() => '');
        if (await this.auth.handleUnauthorized(api, safeMessage(text), opts.signal)) continue;
      }
      return { ...res, path: full };
    }
  }

  /**
   * A notification WebSocket: 2.2 takes the HTTP basic auth header; 3.x reads the JWT
   * only from the `token` query parameter (an Authorization header alone is refused).
   */
  async wsTarget(path: string, signal?: AbortSignal): Promise<{ url: string; headers: Record<string, string>; dispatcher: Dispatcher }> {
    const api = await this.api(signal);
    const url = new URL(`${this.baseUrl.replace(/^http/, 'ws')}/${api}${path}`);
    const headers = await this.auth.headers(api, signal);
    if (api === 'v3') {
      url.searchParams.set('token', (headers.authorization ?? '').replace(/^Bearer /, ''));
      return { url: url.toString(), headers: {}, dispatcher: this.http.dispatcher };
    }
    return { url: url.toString(), headers, dispatcher: this.http.dispatcher };
  }

  async reauthenticate(signal?: AbortSignal): Promise<void> {
    if ((await this.api(signal)) === 'v3') await this.auth.relogin(signal);
  }

  async listProjects(signal?: AbortSignal): Promise<RawProject[]> {
    return ((await this.call('GET', '/projects', { signal })) as RawProject[] | undefined) ?? [];
  }

  /** By id, or by name (case-insensitive; an exact-case match wins). */
  async findProject(nameOrId: string, signal?: AbortSignal): Promise<RawProject> {
    return findProject(await this.listProjects(signal), nameOrId);
  }

  /** Finds the project and opens it when closed. */
  async openProject(nameOrId: string, signal?: AbortSignal): Promise<Gns3Project> {
    return this.openListedProject(await this.findProject(nameOrId, signal), signal);
  }

  /** A project as the controller just listed it (no second read of the list), opened when closed. */
  async openListedProject(listed: RawProject, signal?: AbortSignal): Promise<Gns3Project> {
    let project = listed;
    if (project.status !== 'opened') {
      this.log.info('opening GNS3 project', { project: project.name });
      project =
        ((await this.call('POST', `/projects/${project.project_id}/open`, { body: {}, signal })) as RawProject | undefined) ?? project;
    }
    return new Gns3Project(this, project);
  }

  async createProject(name: string, signal?: AbortSignal): Promise<RawProject> {
    return (await this.call('POST', '/projects', { body: { name }, signal })) as RawProject;
  }

  async deleteProject(projectId: string, signal?: AbortSignal): Promise<void> {
    await this.call('DELETE', `/projects/${projectId}`, { signal });
  }

  async listTemplates(signal?: AbortSignal, maxAgeMs = 30_000): Promise<RawTemplate[]> {
    if (this.templatesCache && Date.now() - this.templatesCache.at < maxAgeMs) return this.templatesCache.list;
    const list = ((await this.call('GET', '/templates', { signal })) as RawTemplate[] | undefined) ?? [];
    this.templatesCache = { at: Date.now(), list };
    return list;
  }

  async listComputes(signal?: AbortSignal, maxAgeMs = 30_000): Promise<RawCompute[]> {
    if (this.computesCache && Date.now() - this.computesCache.at < maxAgeMs) return this.computesCache.list;
    const list = ((await this.call('GET', '/computes', { signal })) as RawCompute[] | undefined) ?? [];
    this.computesCache = { at: Date.now(), list };
    return list;
  }

  async close(): Promise<void> {
    await this.http.close();
  }
}

function safeMessage(text: string): string {
  try {
    const m = (JSON.parse(text) as { message?: unknown; detail?: unknown }).message ?? (JSON.parse(text) as { detail?: unknown }).detail;
    return typeof m === 'string' ? m : 'unauthorized';
  } catch {
    return text.trim().slice(0, 100) || 'unauthorized';
  }
}

export function createGns3Client(opts: Gns3ClientOptions): Gns3Client {
  return new Gns3Client(opts);
}

/**
 * The factory the agent session uses for ctx.project(): a project by name or id, or as the
 * controller just listed it (a class: the list is not read again per project).
 */
export function openProjectScope(client: Gns3Client, project: string | RawProject, signal?: AbortSignal): Promise<Gns3Project> {
  return typeof project === 'string' ? client.openProject(project, signal) : client.openListedProject(project, signal);
}

/**
 * What the TUI needs from the rest of the system, behind small adapters so the
 * views can be tested with a scripted edge. The real implementation composes
 * the agent session + session store, the GNS3 client and the keychain secret store; all
 * imports are lazy so start-up only pays for what it uses.
 */
import type { AgentSession, Approver, LimitAsker } from '../core/api.js';
import type { InvocationOptions, Settings } from '../config/schema.js';
import type { Topology } from '../gns3/types.js';
import type { Logger } from '../log.js';
import type { CopilotMode } from '../core/modes.js';
import { sanitizeDeep } from '../security/sanitize.js';
import type { SessionRequest } from '../checkpoints/types.js';
import type { RewindReport } from '../undo/rewind.js';
import type { TuiRewindOptions } from '../undo/tui-rewind.js';
import type { CreateAgentSessionOptions } from '../agent/session.js';

export interface ProjectInfo {
  id: string;
  name: string;
  status?: string;
}

export interface SessionInfo {
  id: string;
  title: string | null;
  projectId: string | null;
  projectName: string | null;
  mode: CopilotMode;
  pinned: boolean;
  updatedAt: string;
  messageCount: number;
  totalTokens: number;
  /** its request failed before any answer and no process holds it open (the mark `sessions list` shows) */
  failed?: boolean;
}

export interface CreateSessionOptions {
  settings: Settings;
  invocation: InvocationOptions;
  approver: Approver;
  /** asks the user to raise a limit the running request reached */
  limitAsker?: LimitAsker;
  sessionId?: string;
  continueLatest?: boolean;
}

export interface UiServices {
  /** Resolves when the controller answers; throws (one-line message) when it does not. */
  checkController(settings: Settings, signal?: AbortSignal): Promise<void>;
  listProjects(settings: Settings, signal?: AbortSignal): Promise<ProjectInfo[]>;
  topology(settings: Settings, project: string, signal?: AbortSignal): Promise<Topology>;
  createSession(opts: CreateSessionOptions): Promise<AgentSession>;
  /** Newest first, pinned first; `search` matches title, project and id. */
  listSessions(settings: Settings, opts?: { search?: string; limit?: number }): Promise<SessionInfo[]>;
  getSession(settings: Settings, id: string): Promise<SessionInfo | undefined>;
  /** what `--continue` resumes: the newest session (of the project, when one is set) */
  latestSession(settings: Settings): Promise<SessionInfo | undefined>;
  /** the stored conversation, oldest first (empty for a new session) */
  sessionHistory(settings: Settings, id: string): Promise<import('../sessions/transcript.js').TranscriptEntry[]>;
  renameSession(settings: Settings, id: string, title: string): Promise<boolean>;
  setPinned(settings: Settings, id: string, pinned: boolean): Promise<boolean>;
  /** deletes the session row and its checkpoints; false when there was none */
  deleteSession(settings: Settings, id: string): Promise<boolean>;
  /** the session's requests (its prompts and rewinds), oldest first: what /rewind offers */
  sessionRequests(settings: Settings, sessionId: string): Promise<SessionRequest[]>;
  /** /rewind: restores the lab to just before request `to`, each call asked for through `approver`; the report says what is back */
  rewind(settings: Settings, o: TuiRewindOptions): Promise<RewindReport>;
  /** false when neither the keychain nor GNS3_COPILOT_API_KEY / OPENAI_API_KEY hold a key */
  hasApiKey(settings: Settings): Promise<boolean>;
  /** starts loading what opening a session needs (the agent core), so it is there when the controller has answered */
  warmUp?(): void;
  close(): Promise<void>;
}

/**
 * How the TUI opens agent sessions: the composition root's (src/commands/agent-session.ts,
 * the core plus the user's MCP servers), handed in by the command that starts the TUI.
 */
export interface SessionOpener {
  open(opts: CreateAgentSessionOptions): Promise<AgentSession>;
  /** loads the agent core's modules without opening anything */
  warmUp(): Promise<void>;
}

/** Providers that run locally and need no API key. */
const KEYLESS = new Set(['ollama', 'lmstudio', 'vllm']);

// titles and project names come from the DB/controller: printable text only
const info = (r: import('../sessions/store.js').SessionRow): SessionInfo =>
  sanitizeDeep({
    id: r.id,
    title: r.title,
    projectId: r.project_id,
    projectName: r.project_name,
    mode: r.copilot_mode,
    pinned: r.pinned,
    updatedAt: r.updated_at,
    messageCount: r.message_count,
    totalTokens: r.total_tokens,
  } satisfies SessionInfo);

/** The stored sessions the picker offers, each with the mark `sessions list` shows for one that failed before any answer. */
async function listedSessions(s: import('../sessions/store.js').SessionStore): Promise<SessionInfo[]> {
  const rows = s.list({ limit: 500 }).rows;
  const { failedBeforeAnswer } = await import('../sessions/unanswered.js');
  const failed = failedBeforeAnswer(
    s.db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({ ...info(r), failed: failed.has(r.id) }));
}

export function createRealServices(log: Logger, opener: SessionOpener): UiServices {
  // One client per server URL, reused for the project list and /topology.
  const clients = new Map<string, Promise<import('../gns3/client.js').Gns3Client>>();
  let store: Promise<import('../sessions/store.js').SessionStore> | undefined;
  let storeDir: string | undefined;

  const client = (settings: Settings) => {
    const key = `${settings.server}|${settings.api_version}|${settings.insecure}`;
    let c = clients.get(key);
    if (!c) {
      c = (async () => {
        const { createKeychainGns3Client } = await import('../gns3/keychain-client.js');
        return createKeychainGns3Client(settings, log);
      })();
      clients.set(key, c);
    }
    return c;
  };

  const sessions = (settings: Settings) => {
    if (!store || storeDir !== settings.data_dir) {
      storeDir = settings.data_dir;
      store = import('../sessions/store.js').then(({ SessionStore }) => SessionStore.open(settings.data_dir));
    }
    return store;
  };

  return {
    async checkController(settings, signal) {
      const c = await client(settings);
      await c.api(signal);
    },
    async listProjects(settings, signal) {
      const c = await client(settings);
      const list = await c.listProjects(signal);
      return list.map((p) => ({ id: p.project_id, name: p.name, status: p.status }));
    },
    async topology(settings, project, signal) {
      const c = await client(settings);
      const scope = await c.openProject(project, signal);
      return sanitizeDeep(await scope.getTopology(signal));
    },
    warmUp() {
      void opener.warmUp().catch(() => undefined);
    },
    async createSession(opts) {
      return opener.open({
        settings: opts.settings,
        invocation: opts.invocation,
        approver: opts.approver,
        ...(opts.limitAsker ? { limitAsker: opts.limitAsker } : {}),
        log,
        ...(opts.sessionId ? { sessionId: opts.sessionId } : {}),
        ...(opts.continueLatest ? { continueLatest: true } : {}),
      });
    },
    async listSessions(settings, opts = {}) {
      const s = await sessions(settings);
      const rows = await listedSessions(s);
      const q = opts.search?.trim().toLowerCase();
      const hits = q ? rows.filter((r) => `${r.title ?? ''} ${r.projectName ?? ''} ${r.id}`.toLowerCase().includes(q)) : rows;
      return hits.slice(0, opts.limit ?? 200);
    },
    async getSession(settings, id) {
      const s = await sessions(settings);
      const row = s.find(id);
      return row ? info(row) : undefined;
    },
    async latestSession(settings) {
      const row = (await sessions(settings)).latest(settings.project ? { project: settings.project } : {});
      return row ? info(row) : undefined;
    },
    async sessionHistory(settings, id) {
      return sanitizeDeep((await sessions(settings)).saver.log.transcript(id));
    },
    async renameSession(settings, id, title) {
      return (await sessions(settings)).setTitle(id, title);
    },
    async setPinned(settings, id, pinned) {
      return (await sessions(settings)).setPinned(id, pinned);
    },
    async deleteSession(settings, id) {
      return (await sessions(settings)).delete(id);
    },
    async sessionRequests(settings, sessionId) {
      const { sessionRequests } = await import('../undo/tui-rewind.js');
      return sanitizeDeep(sessionRequests(await sessions(settings), sessionId));
    },
    async rewind(settings, o) {
      const { rewindFromTui } = await import('../undo/tui-rewind.js');
      return rewindFromTui(settings, await sessions(settings), o);
    },
    async hasApiKey(settings) {
      if (KEYLESS.has(settings.provider)) return true;
      const secrets = await import('../config/secrets.js');
      const key = await secrets.resolveLlmApiKey(secrets.openSecretStore()).catch(() => undefined);
      return Boolean(key);
    },
    async close() {
      for (const c of clients.values()) await (await c.catch(() => undefined))?.close().catch(() => undefined);
      clients.clear();
      if (store) (await store.catch(() => undefined))?.close();
      store = undefined;
    },
  };
}

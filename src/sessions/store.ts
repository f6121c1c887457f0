/**
 * One SQLite file per user (sessionsDbFile): LangGraph's checkpoint tables plus a
 * `sessions` table with the metadata the session list needs. WAL mode and a busy
 * timeout let two terminals use the same file at once.
 */
import { ensurePrivateDir, tightenFiles } from '../config/perms.js';
import { dirname } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { BaseMessage } from '@langchain/core/messages';
import type Database from 'better-sqlite3';
import type { DeltaSaver } from './delta-saver.js';
import type { CopilotMode } from '../core/modes.js';
import type { AgentMode } from '../core/events.js';
import { storedAgentMode } from '../config/agent-mode.js';
import { sessionsDbFile } from '../config/paths.js';
import { UsageError } from '../errors.js';
import { SessionLease } from './lease.js';
import { TreeStore } from './tree-store.js';
import { deleteSessionRows, removeOrphans } from './session-rows.js';

export const TITLE_MAX = 40;
export const TITLE_FALLBACK_CHARS = 30;

export type { SessionRow } from './types.js';
import type { SessionRow } from './types.js';
import { recordRequestUsage } from './request-usage.js';

export interface ListOptions {
  project?: string;
  mode?: CopilotMode;
  limit?: number;
  offset?: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY,
  project_id TEXT,
  project_name TEXT,
  copilot_mode TEXT NOT NULL,
  agent_mode TEXT NOT NULL DEFAULT 'legacy',
  title TEXT,
  pinned INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  message_count INTEGER NOT NULL DEFAULT 0,
  llm_calls INTEGER NOT NULL DEFAULT 0,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  total_tokens INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS sessions_updated ON sessions(updated_at DESC);
`;

/** Titles: first line, no quotes/markdown, ≤ 40 chars. */
export function cleanTitle(raw: string): string {
  let t = (raw.split('\n').find((l) => l.trim()) ?? '').trim();
  t = t
    .replace(/^(title\s*:\s*)/i, '')
    .replace(/^[#*\s"'`“”]+|[*\s"'`“”.]+$/g, '')
    .trim();
  if (t.length > TITLE_MAX) t = t.slice(0, TITLE_MAX - 1).trimEnd() + '…';
  return t;
}

export function fallbackTitle(firstMessage: string): string {
  const one = firstMessage.replace(/\s+/g, ' ').trim();
  return one.length > TITLE_FALLBACK_CHARS ? one.slice(0, TITLE_FALLBACK_CHARS).trimEnd() : one || 'Untitled session';
}

/** SQLite's answers for a file that is not (or no longer) a readable database. */
const DAMAGED = new Set(['SQLITE_NOTADB', 'SQLITE_CORRUPT']);

/** A damaged sessions.db is bad input the user can fix: name the file and what to do. */
function unusableDatabase(file: string, err: unknown): unknown {
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string' || !DAMAGED.has(code)) return err;
  const why = err instanceof Error ? err.message : code;
  return new UsageError(
    `${file} is not a usable sessions database (${why}): move it aside (mv "${file}" "${file}.broken") and run again; a new one is created`,
    { cause: err },
  );
}

/** A sessions-table row as SQLite returns it (pinned is 0/1). */
type DbRow = Omit<SessionRow, 'pinned'> & { pinned: number };

function rowOf(r: DbRow): SessionRow {
  return { ...r, pinned: r.pinned === 1, agent_mode: storedAgentMode(r.agent_mode) };
}

export class SessionStore {
  private constructor(
    readonly file: string,
    readonly db: Database.Database,
    readonly saver: DeltaSaver,
  ) {}

  static async open(dataDirOverride?: string, file = sessionsDbFile(dataDirOverride)): Promise<SessionStore> {
    ensurePrivateDir(dirname(file));
    const { default: Sqlite } = await import('better-sqlite3');
    const { DeltaSaver } = await import('./delta-saver.js');
    const { migrate } = await import('./migrations.js');
    const db = new Sqlite(file);
    try {
      db.pragma('busy_timeout = 5000');
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      // better-sqlite3 builds with a 16 MB page cache per connection; messages are
      // read once per resume and then kept by the session, so 2 MB keeps the
      // sessions table and indexes hot.
      db.pragma('cache_size = -2000');
      db.exec(SCHEMA);
      tightenFiles(file, `${file}-wal`, `${file}-shm`);
      await migrate(db, file);
      removeOrphans(db);
    } catch (err) {
      // a damaged file fails on its first page read, here rather than half way through a run
      db.close();
      throw unusableDatabase(file, err);
    }
    const saver = new DeltaSaver(db);
    const { redactingSerde } = await import('../security/redact.js');
    saver.serde = redactingSerde(saver.serde);
    return new SessionStore(file, db, saver);
  }

  create(meta: {
    id?: string;
    copilot_mode: CopilotMode;
    agent_mode: AgentMode;
    project_id?: string | null;
    project_name?: string | null;
  }): SessionRow {
    const now = new Date().toISOString();
    const id = meta.id ?? randomUUID();
    this.db
      .prepare(
        'INSERT INTO sessions (id, project_id, project_name, copilot_mode, agent_mode, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(id, meta.project_id ?? null, meta.project_name ?? null, meta.copilot_mode, meta.agent_mode, now, now);
    return this.get(id)!;
  }

  get(id: string): SessionRow | undefined {
    const r = this.db.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as DbRow | undefined;
    return r ? rowOf(r) : undefined;
  }

  /** Exact id, or a unique id prefix (ids are long; users type the first 8 chars). */
  find(idOrPrefix: string): SessionRow | undefined {
    const exact = this.get(idOrPrefix);
    if (exact) return exact;
    if (idOrPrefix.length < 4) return undefined;
    const rows = this.db.prepare("SELECT * FROM sessions WHERE id LIKE ? || '%' LIMIT 2").all(idOrPrefix) as DbRow[];
    return rows.length === 1 ? rowOf(rows[0]!) : undefined;
  }

  /** `find`, for a session the user named: one that names none is a usage error (exit 2). */
  named(idOrPrefix: string): SessionRow {
    const row = this.find(idOrPrefix);
    if (!row) throw new UsageError(`no session "${idOrPrefix}" (see \`gns3-copilot sessions list\`)`);
    return row;
  }

  latest(filter: { project?: string } = {}): SessionRow | undefined {
    const r = (
      filter.project
        ? this.db
            .prepare('SELECT * FROM sessions WHERE project_id = ? OR project_name = ? ORDER BY updated_at DESC, rowid DESC LIMIT 1')
            .get(filter.project, filter.project)
        : this.db.prepare('SELECT * FROM sessions ORDER BY updated_at DESC, rowid DESC LIMIT 1').get()
    ) as DbRow | undefined;
    return r ? rowOf(r) : undefined;
  }

  list(o: ListOptions = {}): { rows: SessionRow[]; total: number } {
    const where: string[] = [];
    const params: unknown[] = [];
    if (o.project) {
      where.push('(project_id = ? OR project_name = ?)');
      params.push(o.project, o.project);
    }
    if (o.mode) {
      where.push('copilot_mode = ?');
      params.push(o.mode);
    }
    const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const total = (this.db.prepare(`SELECT COUNT(*) AS n FROM sessions ${w}`).get(...params) as { n: number }).n;
    const rows = this.db
      .prepare(`SELECT * FROM sessions ${w} ORDER BY pinned DESC, updated_at DESC, rowid DESC LIMIT ? OFFSET ?`)
      .all(...params, o.limit ?? 20, o.offset ?? 0) as DbRow[];
    return { rows: rows.map(rowOf), total };
  }

  setTitle(id: string, title: string): boolean {
    return this.db.prepare('UPDATE sessions SET title = ? WHERE id = ?').run(cleanTitle(title) || fallbackTitle(title), id).changes > 0;
  }

  setPinned(id: string, pinned: boolean): boolean {
    return this.db.prepare('UPDATE sessions SET pinned = ? WHERE id = ?').run(pinned ? 1 : 0, id).changes > 0;
  }

  setMode(id: string, mode: CopilotMode): void {
    this.db.prepare('UPDATE sessions SET copilot_mode = ? WHERE id = ?').run(mode, id);
  }

  setProject(id: string, projectId: string, projectName: string): void {
    this.db.prepare('UPDATE sessions SET project_id = ?, project_name = ? WHERE id = ?').run(projectId, projectName, id);
  }

  /** Adds one request's usage (and the model it ran with, when known); message_count is the checkpoint's total. */
  recordRequest(
    id: string,
    u: { message_count: number; llm_calls: number; input_tokens: number; output_tokens: number; model?: string },
  ): void {
    if (u.model !== undefined && (u.llm_calls > 0 || u.input_tokens + u.output_tokens > 0))
      recordRequestUsage(this.db, id, {
        model: u.model,
        llm_calls: u.llm_calls,
        input_tokens: u.input_tokens,
        output_tokens: u.output_tokens,
      });
    this.db
      .prepare(
        `UPDATE sessions SET message_count = ?, llm_calls = llm_calls + ?, input_tokens = input_tokens + ?,
         output_tokens = output_tokens + ?, total_tokens = total_tokens + ?, updated_at = ? WHERE id = ?`,
      )
      .run(u.message_count, u.llm_calls, u.input_tokens, u.output_tokens, u.input_tokens + u.output_tokens, new Date().toISOString(), id);
  }

  touch(id: string): void {
    this.db.prepare('UPDATE sessions SET updated_at = ? WHERE id = ?').run(new Date().toISOString(), id);
  }

  /**
   * Deletes a session and every row it owns in one transaction, holding its
   * lease meanwhile: a session another process is running is refused
   * (SessionInUseError), so that run's turn is never lost. `force` takes over
   * a lease held from another host, whose process cannot be checked here.
   */
  delete(id: string, o: { force?: boolean } = {}): boolean {
    const hint = o.force ? 'end that process first' : 'end that process first (--force when it is on another host and gone)';
    const lease = SessionLease.acquire(this.db, id, { force: o.force, hint });
    try {
      const threads = new TreeStore(this.db).nodes(id).map((n) => n.id);
      const deleted = this.db.transaction(() => deleteSessionRows(this.db, id)).immediate();
      for (const t of [id, ...threads]) this.saver.forget(t);
      return deleted;
    } finally {
      lease.release();
    }
  }

  /**
   * Checkpoints (two per iteration) refer to the messages table instead of holding
   * the history, but they and their pending writes still pile up; we only ever
   * resume from the latest checkpoint: keep the newest few per session.
   */
  pruneCheckpoints(id: string, keep = 4): number {
    const prune = this.db.transaction(() => {
      const old = this.db
        .prepare(
          "SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT -1 OFFSET ?",
        )
        .all(id, keep) as { checkpoint_id: string }[];
      if (old.length === 0) return 0;
      const delC = this.db.prepare("DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?");
      const delW = this.db.prepare("DELETE FROM writes WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?");
      for (const o of old) {
        delC.run(id, o.checkpoint_id);
        delW.run(id, o.checkpoint_id);
      }
      return old.length;
    });
    return prune.immediate();
  }

  /** The conversation from the messages table (no graph, no checkpoint; no system message: that is rebuilt per call). */
  async messages(id: string): Promise<BaseMessage[]> {
    return this.saver.log.read(id).messages;
  }

  close(): void {
    try {
      this.db.close();
    } catch {
      // already closed
    }
  }
}

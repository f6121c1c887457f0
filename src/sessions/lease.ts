/**
 * One writer per session: a lease row in sessions.db (owner pid, host, heartbeat).
 * Taken in an IMMEDIATE transaction, so two processes racing for one session
 * cannot both win. A lease is stale when its heartbeat is older than STALE_MS or
 * its owner pid on this host is gone (kill -9, crash), and is then taken over.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { CopilotError, ExitCode } from '../errors.js';
import { processAlive } from '../config/store.js';

const SCHEMA = `CREATE TABLE IF NOT EXISTS session_leases (
  session_id TEXT PRIMARY KEY,
  pid INTEGER NOT NULL,
  host TEXT NOT NULL,
  token TEXT NOT NULL,
  heartbeat_at INTEGER NOT NULL
)`;

export const HEARTBEAT_MS = 5_000;
export const STALE_MS = 30_000;

export class SessionInUseError extends CopilotError {
  constructor(
    readonly pid: number,
    hint = 'use --fork to branch it',
    exitCode: ExitCode = ExitCode.Internal,
  ) {
    super(`session is in use by pid ${pid}; ${hint}`, exitCode);
  }
}

export interface AcquireOptions {
  now?: () => number;
  /**
   * Take over a lease whose holder cannot be checked (another host) before its
   * heartbeat goes stale; a live holder on this host is still refused.
   */
  force?: boolean;
  /** what the refusal tells the user to do instead */
  hint?: string;
  /** the refusal's exit code (default 1, what resume and `sessions delete` have always exited with) */
  exitCode?: ExitCode;
}

interface LeaseRow {
  pid: number;
  host: string;
  token: string;
  heartbeat_at: number;
}

/** A lease whose owner stopped beating, or whose owner on this host is no longer alive. */
function leaseGone(r: Pick<LeaseRow, 'pid' | 'host' | 'heartbeat_at'>, now: number, host: string): boolean {
  return now - r.heartbeat_at > STALE_MS || (r.host === host && !processAlive(r.pid));
}

/** The sessions among `ids` that a live process holds open now (a request running, a TUI open). */
export function heldSessions(db: Database.Database, ids: string[], now = Date.now()): Set<string> {
  const held = new Set<string>();
  // read only: a file where no lease was ever taken has no table, and nothing is held
  if (ids.length === 0 || !db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'session_leases'").get()) return held;
  const host = hostname();
  const get = db.prepare('SELECT pid, host, heartbeat_at FROM session_leases WHERE session_id = ?');
  for (const id of ids) {
    const r = get.get(id) as Pick<LeaseRow, 'pid' | 'host' | 'heartbeat_at'> | undefined;
    if (r && !leaseGone(r, now, host)) held.add(id);
  }
  return held;
}

export class SessionLease {
  private timer: NodeJS.Timeout | undefined;
  private constructor(
    private readonly db: Database.Database,
    readonly sessionId: string,
    private readonly token: string,
  ) {}

  /** Takes the lease or throws SessionInUseError naming the live owner. */
  static acquire(db: Database.Database, sessionId: string, o: AcquireOptions = {}): SessionLease {
    const now = o.now ?? Date.now;
    db.exec(SCHEMA);
    const token = randomUUID();
    const host = hostname();
    db.transaction(() => {
      const r = db.prepare('SELECT pid, host, token, heartbeat_at FROM session_leases WHERE session_id = ?').get(sessionId) as
        LeaseRow | undefined;
      if (r) {
        // this process may take over its own lease: the TUI opens a session again before closing the old handle
        const here = r.host === host;
        const stale = leaseGone(r, now(), host) || (here && r.pid === process.pid);
        if (!stale && !(o.force && !here)) throw new SessionInUseError(r.pid, o.hint, o.exitCode);
      }
      db.prepare('INSERT OR REPLACE INTO session_leases (session_id, pid, host, token, heartbeat_at) VALUES (?, ?, ?, ?, ?)').run(
        sessionId,
        process.pid,
        host,
        token,
        now(),
      );
    }).immediate();
    const lease = new SessionLease(db, sessionId, token);
    lease.timer = setInterval(() => lease.beat(), HEARTBEAT_MS);
    lease.timer.unref();
    return lease;
  }

  /** false when the lease was taken over (this process was presumed dead). */
  beat(): boolean {
    try {
      return (
        this.db
          .prepare('UPDATE session_leases SET heartbeat_at = ? WHERE session_id = ? AND token = ?')
          .run(Date.now(), this.sessionId, this.token).changes > 0
      );
    } catch {
      return false; // busy or closed: the next beat retries
    }
  }

  release(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    try {
      this.db.prepare('DELETE FROM session_leases WHERE session_id = ? AND token = ?').run(this.sessionId, this.token);
    } catch {
      // database already closed: the lease goes stale with this pid
    }
  }
}

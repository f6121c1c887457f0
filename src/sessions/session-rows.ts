/**
 * Every row of sessions.db that belongs to one session, in one place: deleting a
 * session removes them all in one transaction, and opening the file removes rows
 * whose session is gone (left by an older release that deleted a session while
 * another process was still writing it). A session's own thread and each child
 * agent's thread (agent_nodes.id) own checkpoints and messages.
 */
import type Database from 'better-sqlite3';
import { dropUnusedBlobs } from './checkpoint-blobs.js';

/** Tables keyed by a thread (the session's or a child agent's). */
const THREAD_TABLES = [
  ['checkpoints', 'thread_id'],
  ['writes', 'thread_id'],
  ['messages', 'session_id'],
] as const;

/** Tables keyed by the session (the tree's root). */
const SESSION_TABLES = [
  ['device_checkpoints', 'session_id'],
  ['topology_checkpoints', 'session_id'],
  ['rewinds', 'session_id'],
  ['agent_trees', 'root_id'],
  ['agent_nodes', 'root_id'],
  ['tree_usage', 'root_id'],
  ['tree_request_time', 'root_id'],
  ['context_refs', 'root_id'],
  ['ref_grants', 'root_id'],
  ['agent_reviews', 'root_id'],
  ['tree_stop_requests', 'root_id'],
  ['session_leases', 'session_id'],
  ['request_usage', 'session_id'],
  ['seen_topology', 'session_id'],
  ['state_baselines', 'session_id'],
] as const;

/** The tables are created lazily (the checkpoint saver, the tree store): only those present. */
function present(db: Database.Database): Set<string> {
  return new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
}

/**
 * Deletes a session and everything it owns; runs inside the caller's
 * transaction. Returns whether the session row existed.
 */
export function deleteSessionRows(db: Database.Database, sessionId: string): boolean {
  const tables = present(db);
  const threads = [sessionId];
  if (tables.has('agent_nodes'))
    threads.push(...(db.prepare('SELECT id FROM agent_nodes WHERE root_id = ?').pluck().all(sessionId) as string[]));
  for (const [table, col] of THREAD_TABLES) {
    if (!tables.has(table)) continue;
    const del = db.prepare(`DELETE FROM ${table} WHERE ${col} = ?`);
    for (const t of threads) del.run(t);
  }
  for (const [table, col] of SESSION_TABLES) if (tables.has(table)) db.prepare(`DELETE FROM ${table} WHERE ${col} = ?`).run(sessionId);
  dropUnusedBlobs(db);
  return db.prepare('DELETE FROM sessions WHERE id = ?').run(sessionId).changes > 0;
}

/** A thread is owned while its session row, or its child agent's node row, exists. */
function ownerless(tables: Set<string>, col: string): string {
  const nodes = tables.has('agent_nodes') ? ` AND ${col} NOT IN (SELECT id FROM agent_nodes)` : '';
  return `${col} NOT IN (SELECT id FROM sessions)${nodes}`;
}

/**
 * Removes rows whose session no longer exists. A cheap read decides first, so
 * the usual open (no orphans) takes no write lock. A session's row is always
 * written before anything it owns, so a live run never looks orphaned.
 * Leases are left alone: a new session takes its lease before its row exists.
 */
export function removeOrphans(db: Database.Database): number {
  const tables = present(db);
  const checks: [string, string][] = [];
  // tree rows first: a gone tree's child nodes then no longer own their threads
  for (const [table, col] of SESSION_TABLES)
    if (tables.has(table) && table !== 'session_leases') checks.push([table, `${col} NOT IN (SELECT id FROM sessions)`]);
  for (const [table, col] of THREAD_TABLES) if (tables.has(table)) checks.push([table, ownerless(tables, col)]);
  const found = checks.filter(([table, where]) => db.prepare(`SELECT 1 FROM ${table} WHERE ${where} LIMIT 1`).get() !== undefined);
  if (found.length === 0) return 0;
  return db
    .transaction(() => {
      let n = 0;
      for (const [table, where] of checks) n += db.prepare(`DELETE FROM ${table} WHERE ${where}`).run().changes;
      return n + dropUnusedBlobs(db);
    })
    .immediate();
}

/**
 * Sessions that failed before any answer: a request whose model never answered (the LLM
 * unreachable, a refused key) still leaves its session — the row is made before the graph runs,
 * so a run killed mid-turn can be continued — with the user's message and no reply. `sessions
 * list` marks them failed rather than showing an "(untitled)" session as if it were a
 * conversation. A session a live process holds open (a request running, a TUI that may retry)
 * is not failed yet.
 */
import type Database from 'better-sqlite3';
import { heldSessions } from './lease.js';

/** The sessions among `ids` with no assistant message that no live process holds open. */
export function failedBeforeAnswer(db: Database.Database, ids: string[]): Set<string> {
  if (ids.length === 0) return new Set();
  const answered = db.prepare("SELECT 1 FROM messages WHERE session_id = ? AND role = 'assistant' LIMIT 1");
  const unanswered = ids.filter((id) => answered.get(id) === undefined);
  const held = heldSessions(db, unanswered);
  return new Set(unanswered.filter((id) => !held.has(id)));
}

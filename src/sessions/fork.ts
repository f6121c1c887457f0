/**
 * `--fork`: branch a session into a new id. Copies the session row (usage starts
 * at zero), its messages and its latest checkpoint (whose message reference is
 * relative to the copied log) in one transaction; the original is not touched and
 * needs no lease, so a session in use elsewhere can still be forked.
 */
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';

export function forkSession(db: Database.Database, sourceId: string, newId: string = randomUUID()): string {
  const now = new Date().toISOString();
  const hasCheckpoints = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'checkpoints'").get() !== undefined;
  db.transaction(() => {
    db.prepare(
      `INSERT INTO sessions (id, project_id, project_name, copilot_mode, agent_mode, title, pinned, created_at, updated_at, message_count)
       SELECT ?, project_id, project_name, copilot_mode, agent_mode, title, 0, ?, ?, message_count FROM sessions WHERE id = ?`,
    ).run(newId, now, now, sourceId);
    db.prepare(
      `INSERT INTO messages (session_id, seq, msg_id, role, content, tool_call_ids, tokens, created_at, extra)
       SELECT ?, seq, msg_id, role, content, tool_call_ids, tokens, created_at, extra FROM messages WHERE session_id = ?`,
    ).run(newId, sourceId);
    if (!hasCheckpoints) return;
    const latest = db
      .prepare("SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1")
      .pluck()
      .get(sourceId) as string | undefined;
    if (!latest) return;
    db.prepare(
      `INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata)
       SELECT ?, checkpoint_ns, checkpoint_id, NULL, type, checkpoint, metadata FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?`,
    ).run(newId, sourceId, latest);
    db.prepare(
      `INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value)
       SELECT ?, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value FROM writes WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?`,
    ).run(newId, sourceId, latest);
  }).immediate();
  return newId;
}

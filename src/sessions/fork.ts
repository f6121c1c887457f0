/**
 * `--fork`: branch a session into a new id. Copies the session row (usage starts
 * at zero), its messages and its latest checkpoint (whose message reference is
 * relative to the copied log) in one transaction; the original is not touched and
 * needs no lease, so a session in use elsewhere can still be forked.
 *
 * A session with a sub-agent tree takes the tree along: the tree rows (mode, anchor,
 * budget snapshot, usage, children, reviews, context refs) under new ids, and each
 * child's conversation thread under its new id, so the fork resumes and continues
 * the tree (its budget goes on from the copied usage). Old ids in the copied
 * conversations are replaced by the new ones: the fork's model never names a node of
 * the original.
 */
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { TreeStore } from './tree-store.js';
import { SeenTopologyStore } from './seen-topology.js';

function hasTable(db: Database.Database, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

/** Copies one conversation thread (its messages and latest checkpoint), replacing ids as it goes. */
function copyThread(db: Database.Database, from: string, to: string, ids: ReadonlyMap<string, string>, checkpoints: boolean): void {
  db.prepare(
    `INSERT INTO messages (session_id, seq, msg_id, role, content, tool_call_ids, tokens, created_at, extra)
     SELECT ?, seq, msg_id, role, content, tool_call_ids, tokens, created_at, extra FROM messages WHERE session_id = ?`,
  ).run(to, from);
  const rename = db.prepare('UPDATE messages SET content = replace(content, ?, ?), extra = replace(extra, ?, ?) WHERE session_id = ?');
  for (const [a, b] of ids) rename.run(a, b, a, b, to);
  if (!checkpoints) return;
  const latest = db
    .prepare("SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1")
    .pluck()
    .get(from) as string | undefined;
  if (!latest) return;
  db.prepare(
    `INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata)
     SELECT ?, checkpoint_ns, checkpoint_id, NULL, type, checkpoint, metadata FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?`,
  ).run(to, from, latest);
  db.prepare(
    `INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value)
     SELECT ?, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value FROM writes WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?`,
  ).run(to, from, latest);
}

export function forkSession(db: Database.Database, sourceId: string, newId: string = randomUUID()): string {
  const now = new Date().toISOString();
  const checkpoints = hasTable(db, 'checkpoints');
  const trees = new TreeStore(db);
  db.transaction(() => {
    db.prepare(
      `INSERT INTO sessions (id, project_id, project_name, copilot_mode, agent_mode, title, pinned, created_at, updated_at, message_count)
       SELECT ?, project_id, project_name, copilot_mode, agent_mode, title, 0, ?, ?, message_count FROM sessions WHERE id = ?`,
    ).run(newId, now, now, sourceId);
    const children = trees.get(sourceId) ? trees.copyTree(sourceId, newId, randomUUID) : new Map<string, string>();
    const ids = new Map([[sourceId, newId], ...children]);
    copyThread(db, sourceId, newId, ids, checkpoints);
    if (hasTable(db, 'seen_topology')) new SeenTopologyStore(db).copy(sourceId, newId);
    for (const [from, to] of children) copyThread(db, from, to, ids, checkpoints);
  }).immediate();
  return newId;
}

/**
 * The configurations checkpoints keep, stored once per distinct text in
 * `checkpoint_blobs` (keyed by SHA-256, deflated). Both the session checkpoints
 * (`device_checkpoints`) and the named lab checkpoints (`lab_checkpoint_devices`)
 * point at them, so a blob is dropped only when neither does.
 */
import { createHash } from 'node:crypto';
import { deflateSync, inflateSync } from 'node:zlib';
import type Database from 'better-sqlite3';

/** The tables whose `hash` column points at a blob. */
const BLOB_USERS = ['device_checkpoints', 'lab_checkpoint_devices'] as const;

export const blobHash = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Stores a configuration (once per text); returns its hash. */
export function putBlob(db: Database.Database, text: string): string {
  const hash = blobHash(text);
  db.prepare('INSERT OR IGNORE INTO checkpoint_blobs (hash, data) VALUES (?, ?)').run(hash, deflateSync(Buffer.from(text, 'utf8')));
  return hash;
}

/** The configuration a hash names ('' when it is gone). */
export function readBlob(db: Database.Database, hash: string): string {
  const row = db.prepare('SELECT data FROM checkpoint_blobs WHERE hash = ?').pluck().get(hash) as Buffer | undefined;
  return row ? inflateSync(row).toString('utf8') : '';
}

/** Drops the configurations no checkpoint of either kind points at any more; returns how many. */
export function dropUnusedBlobs(db: Database.Database): number {
  const tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
  if (!tables.has('checkpoint_blobs')) return 0;
  const used = BLOB_USERS.filter((t) => tables.has(t)).map((t) => `SELECT hash FROM ${t} WHERE hash IS NOT NULL`);
  if (used.length === 0) return 0;
  return db.prepare(`DELETE FROM checkpoint_blobs WHERE hash NOT IN (${used.join(' UNION ')})`).run().changes;
}

/**
 * The named lab checkpoints in sessions.db (created by migration 7,
 * src/sessions/migrations.ts): a whole lab saved under a name, per controller and
 * project, with no copilot session behind it. Each device's configuration is a
 * blob of `checkpoint_blobs` (deduplicated and deflated like the session
 * checkpoints'), or the reason it was not saved; the topology is JSON. A restore
 * is recorded while it runs, so one killed half way is known and resumed.
 */
export const NAMED_CHECKPOINT_SCHEMA = `
CREATE TABLE IF NOT EXISTS lab_checkpoints (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  controller TEXT NOT NULL,
  project_id TEXT NOT NULL,
  project_name TEXT NOT NULL,
  name TEXT NOT NULL,
  note TEXT,
  topology TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (controller, project_id, name)
);
CREATE TABLE IF NOT EXISTS lab_checkpoint_devices (
  checkpoint_id INTEGER NOT NULL,
  device TEXT NOT NULL,
  node_id TEXT NOT NULL,
  platform TEXT,
  hash TEXT,
  error TEXT,
  PRIMARY KEY (checkpoint_id, device)
);
CREATE INDEX IF NOT EXISTS lab_checkpoint_devices_hash ON lab_checkpoint_devices(hash);
CREATE TABLE IF NOT EXISTS lab_checkpoint_restores (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  checkpoint_id INTEGER NOT NULL,
  devices TEXT,
  status TEXT NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT
);
`;

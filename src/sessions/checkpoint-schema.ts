/**
 * The checkpoint tables in sessions.db (created by migration 3,
 * src/sessions/migrations.ts). Configurations are stored once per distinct
 * text (`checkpoint_blobs`, keyed by SHA-256, deflated); a device checkpoint
 * row points at its blob, or says why there is none.
 */
export const CHECKPOINT_SCHEMA = `
CREATE TABLE IF NOT EXISTS checkpoint_blobs (
  hash TEXT PRIMARY KEY,
  data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS device_checkpoints (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL,
  request_no INTEGER NOT NULL,
  call_id TEXT,
  device TEXT NOT NULL,
  hash TEXT,
  error TEXT,
  created_at TEXT NOT NULL,
  UNIQUE (session_id, request_no, device)
);
CREATE TABLE IF NOT EXISTS topology_checkpoints (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL,
  request_no INTEGER NOT NULL,
  call_id TEXT,
  before TEXT NOT NULL,
  created TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS topology_checkpoints_session ON topology_checkpoints(session_id, request_no);
CREATE TABLE IF NOT EXISTS rewinds (
  session_id TEXT NOT NULL,
  request_no INTEGER NOT NULL,
  to_request INTEGER NOT NULL,
  status TEXT NOT NULL,
  created_at TEXT NOT NULL,
  finished_at TEXT,
  PRIMARY KEY (session_id, request_no)
);
`;

/**
 * The checkpoint tables in sessions.db (created by migration 3,
 * src/sessions/migrations.ts). Configurations are stored once per distinct
 * text (`checkpoint_blobs`, keyed by SHA-256, deflated); a device checkpoint
 * row points at its blob, or says why there is none.
 */
/** A device checkpoint's columns: one per request up to migration 9, one per call since. */
const DEVICE_CHECKPOINT_COLUMNS = `
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL,
  request_no INTEGER NOT NULL,
  call_id TEXT,
  device TEXT NOT NULL,
  hash TEXT,
  error TEXT,
  created_at TEXT NOT NULL`.slice(1);

export const CHECKPOINT_SCHEMA = `
CREATE TABLE IF NOT EXISTS checkpoint_blobs (
  hash TEXT PRIMARY KEY,
  data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS device_checkpoints (
${DEVICE_CHECKPOINT_COLUMNS},
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

/**
 * Migration 9: a device checkpoint per configuration call, not per request. A request's later
 * call that changes a device again keeps the configuration it found, so a regression's rewind
 * restores the checkpoint taken before that very call (an earlier call's change stays). The
 * request's first row per device is still "the device just before the request".
 */
export const DEVICE_CHECKPOINTS_PER_CALL = `
CREATE TABLE device_checkpoints_per_call (
${DEVICE_CHECKPOINT_COLUMNS}
);
INSERT INTO device_checkpoints_per_call (id, session_id, request_no, call_id, device, hash, error, created_at)
  SELECT id, session_id, request_no, call_id, device, hash, error, created_at FROM device_checkpoints;
DROP TABLE device_checkpoints;
ALTER TABLE device_checkpoints_per_call RENAME TO device_checkpoints;
CREATE INDEX IF NOT EXISTS device_checkpoints_request ON device_checkpoints(session_id, request_no, device);
`;

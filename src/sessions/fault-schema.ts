/**
 * The fault ledger's tables in sessions.db (created by migration 4,
 * src/sessions/migrations.ts). One row per fault the agent injected in inject
 * mode: where (a device or a link), what (scenario, category, difficulty, the
 * commands or filters applied), how to undo it (the restore as a tool call) and
 * how to tell it is gone (the repair check, a check of src/check/schema.ts).
 * Every run of a repair check is kept in `fault_checks`; `fixed_at` is the time
 * of the first one that passed.
 */
export const FAULT_SCHEMA = `
CREATE TABLE IF NOT EXISTS faults (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL,
  project_id TEXT NOT NULL,
  project_name TEXT NOT NULL,
  call_id TEXT,
  target_kind TEXT NOT NULL,
  target TEXT NOT NULL,
  scenario TEXT,
  category TEXT NOT NULL,
  difficulty TEXT NOT NULL,
  applied TEXT NOT NULL,
  restore TEXT NOT NULL,
  repair_check TEXT NOT NULL,
  injected_at TEXT NOT NULL,
  fixed_at TEXT,
  restored_at TEXT
);
CREATE INDEX IF NOT EXISTS faults_open ON faults(project_id, target, category) WHERE fixed_at IS NULL AND restored_at IS NULL;
CREATE TABLE IF NOT EXISTS fault_checks (
  fault_id INTEGER NOT NULL,
  checked_at TEXT NOT NULL,
  status TEXT NOT NULL,
  evidence TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS fault_checks_fault ON fault_checks(fault_id);
`;

/**
 * Claims on the ledger that hold across processes (src/faults/claims.ts): a (project, target,
 * category) slot while a fault is applied in it, a fault while it is restored. Made on first use
 * (as the session leases are), so a file of any schema version takes it.
 */
export const FAULT_CLAIMS_SCHEMA = `
CREATE TABLE IF NOT EXISTS fault_claims (
  claim TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  pid INTEGER NOT NULL,
  host TEXT NOT NULL,
  token TEXT NOT NULL,
  claimed_at TEXT NOT NULL
);
`;

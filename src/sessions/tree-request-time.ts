/**
 * `tree_request_time`: how long each request of a recursive tree ran, one row per request
 * (src/agent/tree/ledger.ts writes it). AGENT_MAX_DURATION_SECONDS counts the sum, so the
 * idle time between requests never counts.
 */
import type Database from 'better-sqlite3';

const TABLE = `
CREATE TABLE IF NOT EXISTS tree_request_time (
  root_id TEXT NOT NULL,
  request INTEGER NOT NULL,
  started_ms INTEGER NOT NULL,
  running_ms INTEGER NOT NULL,
  PRIMARY KEY (root_id, request)
);
`;

/**
 * Creates the table once. When this creates it, every tree the file holds was budgeted by
 * its age (the release before counted wall time since the tree was created): a `duration`
 * stop recorded then says nothing about the time it ran, so it is lifted; the tree's other
 * budgets are judged again at its next call.
 */
export function createRequestTimeTable(db: Database.Database): void {
  const exists = (): boolean =>
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'tree_request_time'").get() !== undefined;
  if (exists()) return;
  db.transaction(() => {
    if (exists()) return; // another process created it between the look and the lock
    db.exec(TABLE);
    db.prepare("UPDATE tree_usage SET exhausted = NULL WHERE exhausted = 'duration'").run();
  }).immediate();
}

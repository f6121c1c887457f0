/**
 * The sub-agent trees' tables in sessions.db (src/sessions/tree-store.ts creates them
 * idempotently on the SessionStore's connection): the DDL, the columns added in place to an
 * older DB, and the tables whose rows belong to one tree.
 */
export const TREE_SCHEMA = `
CREATE TABLE IF NOT EXISTS agent_trees (
  root_id TEXT PRIMARY KEY,
  agent_mode TEXT NOT NULL,
  mode_revision INTEGER NOT NULL,
  depth INTEGER NOT NULL DEFAULT 0,
  anchor TEXT,
  anchor_hash TEXT,
  budget TEXT,
  created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS agent_nodes (
  id TEXT PRIMARY KEY,
  root_id TEXT NOT NULL,
  parent_id TEXT NOT NULL,
  depth INTEGER NOT NULL,
  goal TEXT NOT NULL,
  brief TEXT NOT NULL,
  tools TEXT NOT NULL,
  status TEXT NOT NULL,
  report TEXT,
  llm_calls INTEGER NOT NULL DEFAULT 0,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  ended_at TEXT
);
CREATE INDEX IF NOT EXISTS agent_nodes_parent ON agent_nodes(parent_id);
CREATE INDEX IF NOT EXISTS agent_nodes_root ON agent_nodes(root_id);
CREATE TABLE IF NOT EXISTS tree_usage (
  root_id TEXT PRIMARY KEY,
  agents INTEGER NOT NULL,
  llm_calls INTEGER NOT NULL,
  tokens INTEGER NOT NULL,
  cost_usd REAL NOT NULL,
  started_ms INTEGER NOT NULL,
  exhausted TEXT
);
CREATE TABLE IF NOT EXISTS context_refs (
  root_id TEXT NOT NULL,
  id TEXT NOT NULL,
  source TEXT NOT NULL,
  content TEXT NOT NULL,
  PRIMARY KEY (root_id, id)
);
CREATE TABLE IF NOT EXISTS ref_grants (
  root_id TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  ref_id TEXT NOT NULL,
  PRIMARY KEY (agent_id, ref_id)
);
CREATE TABLE IF NOT EXISTS agent_reviews (
  root_id TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  parent_id TEXT NOT NULL,
  decision TEXT NOT NULL,
  note TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS agent_reviews_agent ON agent_reviews(agent_id);
CREATE TABLE IF NOT EXISTS tree_stop_requests (
  root_id TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  requested_at TEXT NOT NULL,
  PRIMARY KEY (root_id, agent_id)
);
`;

/** Columns added after the first release of the tables: added in place to an older DB. */
export const ADDED_NODE_COLUMNS = ['validation TEXT', 'review TEXT'];
/** The root Validator's latest ValidationResult (JSON) of the tree's root answer. */
export const ADDED_TREE_COLUMNS = ['validation TEXT'];

/** Tables whose rows belong to one tree (copied by a fork, removed with the tree). */
export const TREE_TABLES = [
  'agent_trees',
  'agent_nodes',
  'tree_usage',
  'tree_request_time',
  'context_refs',
  'ref_grants',
  'agent_reviews',
] as const;

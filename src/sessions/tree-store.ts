/**
 * Sub-agent trees in the sessions DB: one `agent_trees` row per root
 * session (its fixed AGENT_MODE, mode revision, anchor and budget snapshot), one
 * `agent_nodes` row per child, and `tree_usage` for the tree budget. Tables are
 * created idempotently on the SessionStore's connection; store.ts is untouched.
 */
import type Database from 'better-sqlite3';
import type { AgentMode } from '../core/events.js';

/** Bumped when what a stored mode means changes; stored with every tree. */
export const AGENT_MODE_REVISION = 1;

export type NodeStatus = 'queued' | 'running' | 'completed' | 'stopped' | 'failed' | 'refused';

export interface TreeRow {
  root_id: string;
  agent_mode: AgentMode;
  mode_revision: number;
  depth: number;
  anchor: string | null;
  anchor_hash: string | null;
  budget: string | null;
  created_at: string;
}

export interface AgentNodeRow {
  id: string;
  root_id: string;
  parent_id: string;
  depth: number;
  goal: string;
  brief: string;
  tools: string;
  status: NodeStatus;
  report: string | null;
  llm_calls: number;
  input_tokens: number;
  output_tokens: number;
  created_at: string;
  ended_at: string | null;
}

const SCHEMA = `
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
`;

export class TreeStore {
  constructor(readonly db: Database.Database) {
    db.exec(SCHEMA);
  }

  get(rootId: string): TreeRow | undefined {
    return this.db.prepare('SELECT * FROM agent_trees WHERE root_id = ?').get(rootId) as TreeRow | undefined;
  }

  /** Writes the tree row once; an existing row is never changed (the mode is fixed). */
  create(t: {
    root_id: string;
    agent_mode: AgentMode;
    anchor?: string | null;
    anchor_hash?: string | null;
    budget?: string | null;
  }): TreeRow {
    this.db
      .prepare(
        'INSERT OR IGNORE INTO agent_trees (root_id, agent_mode, mode_revision, depth, anchor, anchor_hash, budget, created_at) VALUES (?, ?, ?, 0, ?, ?, ?, ?)',
      )
      .run(
        t.root_id,
        t.agent_mode,
        AGENT_MODE_REVISION,
        t.anchor ?? null,
        t.anchor_hash ?? null,
        t.budget ?? null,
        new Date().toISOString(),
      );
    return this.get(t.root_id)!;
  }

  /** Direct children a parent has had over its lifetime (every status counts). */
  childCount(parentId: string): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM agent_nodes WHERE parent_id = ?').get(parentId) as { n: number }).n;
  }

  /**
   * Registers a batch of children atomically: refused whole (returns false, nothing
   * written) when it would take the parent past `quota`.
   */
  addChildren(
    parentId: string,
    quota: number | undefined,
    rows: Omit<AgentNodeRow, 'created_at' | 'ended_at' | 'report' | 'llm_calls' | 'input_tokens' | 'output_tokens'>[],
    /** another check in the same transaction (the tree budget's agent count) */
    reserve?: () => boolean,
  ): 'ok' | 'quota' | 'reserve' {
    const tx = this.db.transaction((): 'ok' | 'quota' | 'reserve' => {
      if (quota !== undefined && this.childCount(parentId) + rows.length > quota) return 'quota';
      if (reserve && !reserve()) return 'reserve';
      const ins = this.db.prepare(
        'INSERT INTO agent_nodes (id, root_id, parent_id, depth, goal, brief, tools, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      );
      const now = new Date().toISOString();
      for (const r of rows) ins.run(r.id, r.root_id, r.parent_id, r.depth, r.goal, r.brief, r.tools, r.status, now);
      return 'ok';
    });
    return tx.immediate();
  }

  setStatus(id: string, status: NodeStatus): void {
    this.db.prepare('UPDATE agent_nodes SET status = ? WHERE id = ?').run(status, id);
  }

  finish(id: string, f: { status: NodeStatus; report: string; llm_calls: number; input_tokens: number; output_tokens: number }): void {
    this.db
      .prepare(
        'UPDATE agent_nodes SET status = ?, report = ?, llm_calls = ?, input_tokens = ?, output_tokens = ?, ended_at = ? WHERE id = ?',
      )
      .run(f.status, f.report, f.llm_calls, f.input_tokens, f.output_tokens, new Date().toISOString(), id);
  }

  node(id: string): AgentNodeRow | undefined {
    return this.db.prepare('SELECT * FROM agent_nodes WHERE id = ?').get(id) as AgentNodeRow | undefined;
  }

  /** Removes a root's tree rows; returns the children's ids (their checkpoint threads go too). */
  deleteTree(rootId: string): string[] {
    const tx = this.db.transaction(() => {
      const ids = (this.db.prepare('SELECT id FROM agent_nodes WHERE root_id = ?').all(rootId) as { id: string }[]).map((r) => r.id);
      this.db.prepare('DELETE FROM agent_nodes WHERE root_id = ?').run(rootId);
      this.db.prepare('DELETE FROM tree_usage WHERE root_id = ?').run(rootId);
      this.db.prepare('DELETE FROM agent_trees WHERE root_id = ?').run(rootId);
      return ids;
    });
    return tx();
  }

  nodes(rootId: string): AgentNodeRow[] {
    return this.db.prepare('SELECT * FROM agent_nodes WHERE root_id = ? ORDER BY created_at, rowid').all(rootId) as AgentNodeRow[];
  }
}

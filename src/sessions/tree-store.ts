/**
 * Sub-agent trees in the sessions DB: one `agent_trees` row per root
 * session (its fixed agent mode, mode revision, anchor and budget snapshot), one
 * `agent_nodes` row per child, and `tree_usage` with `tree_request_time` (how long each
 * request of the tree ran) for the tree budget. Tables are
 * created idempotently on the SessionStore's connection; store.ts is untouched.
 */
import type Database from 'better-sqlite3';
import type { AgentMode } from '../core/events.js';
import { storedAgentMode } from '../config/agent-mode.js';
import { redact } from '../security/redact.js';
import { createRequestTimeTable } from './tree-request-time.js';
import { ADDED_NODE_COLUMNS, ADDED_TREE_COLUMNS, TREE_SCHEMA, TREE_TABLES } from './tree-schema.js';

/**
 * Bumped when what a stored mode means changes; stored with every tree. Revision 2:
 * recursive children are validated and reviewed, context refs are stored whole.
 */
export const AGENT_MODE_REVISION = 2;

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
  /** the root Validator's latest ValidationResult (JSON); null before one */
  validation?: string | null;
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
  /** the Validator's ValidationResult (JSON) of the latest report */
  validation: string | null;
  /** 'pending' once validated, then the parent's decision (accept|revise|replan|split) */
  review: string | null;
}

/** A granted context ref, stored whole when first granted. */
export interface ContextRefRow {
  id: string;
  source: string;
  content: string;
}

export interface ReviewRow {
  agent_id: string;
  parent_id: string;
  decision: string;
  note: string;
  created_at: string;
}

function addMissingColumns(db: Database.Database, table: string, columns: readonly string[]): void {
  const have = new Set((db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name));
  for (const col of columns) if (!have.has(col.split(' ')[0]!)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${col}`);
}

export class TreeStore {
  constructor(readonly db: Database.Database) {
    db.exec(TREE_SCHEMA);
    createRequestTimeTable(db);
    // Read and add in one IMMEDIATE transaction: two processes opening an older file at once
    // would otherwise both see the column missing and the second ALTER fails (duplicate column).
    db.transaction(() => {
      addMissingColumns(db, 'agent_nodes', ADDED_NODE_COLUMNS);
      addMissingColumns(db, 'agent_trees', ADDED_TREE_COLUMNS);
    }).immediate();
  }

  /** An older tree brought to this revision (the caller decided it can be). */
  setRevision(rootId: string, revision: number): void {
    this.db.prepare('UPDATE agent_trees SET mode_revision = ? WHERE root_id = ?').run(revision, rootId);
  }

  get(rootId: string): TreeRow | undefined {
    const row = this.db.prepare('SELECT * FROM agent_trees WHERE root_id = ?').get(rootId) as TreeRow | undefined;
    return row && { ...row, agent_mode: storedAgentMode(row.agent_mode) };
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
    rows: Omit<
      AgentNodeRow,
      'created_at' | 'ended_at' | 'report' | 'llm_calls' | 'input_tokens' | 'output_tokens' | 'validation' | 'review'
    >[],
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
      for (const t of TREE_TABLES) this.db.prepare(`DELETE FROM ${t} WHERE root_id = ?`).run(rootId);
      this.db.prepare('DELETE FROM tree_stop_requests WHERE root_id = ?').run(rootId);
      return ids;
    });
    return tx.immediate();
  }

  /**
   * Copies a tree under a new root id (a fork): every row of every tree table, with
   * each child under a new id. Ids are replaced wherever they appear in the copied
   * text (briefs, reports, validations), so the copy never names the original's
   * nodes. Returns the old → new child id map. Runs inside the caller's transaction.
   */
  copyTree(fromRoot: string, toRoot: string, newId: () => string): Map<string, string> {
    const ids = new Map<string, string>([[fromRoot, toRoot]]);
    for (const n of this.nodes(fromRoot)) ids.set(n.id, newId());
    const remap = (v: unknown): unknown => {
      if (typeof v !== 'string') return v;
      let out = v;
      for (const [from, to] of ids) if (out.includes(from)) out = out.split(from).join(to);
      return out;
    };
    for (const t of TREE_TABLES) {
      const rows = this.db.prepare(`SELECT * FROM ${t} WHERE root_id = ?`).all(fromRoot) as Record<string, unknown>[];
      for (const r of rows) {
        const cols = Object.keys(r);
        const vals = cols.map((c) => remap(r[c]));
        this.db.prepare(`INSERT INTO ${t} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`).run(...vals);
      }
    }
    ids.delete(fromRoot);
    return ids;
  }

  /** The root Validator's verdict on the tree's latest root answer. */
  setRootValidation(rootId: string, validationJson: string): void {
    this.db.prepare('UPDATE agent_trees SET validation = ? WHERE root_id = ?').run(validationJson, rootId);
  }

  // ---- the review gate ----

  setValidation(id: string, validationJson: string): void {
    this.db.prepare("UPDATE agent_nodes SET validation = ?, review = 'pending' WHERE id = ?").run(validationJson, id);
  }

  /** The parent's decision on a child's report; returns false when nothing awaited review. */
  review(rootId: string, parentId: string, agentId: string, decision: string, note: string): boolean {
    const tx = this.db.transaction((): boolean => {
      const n = this.node(agentId);
      if (!n || n.parent_id !== parentId || n.review !== 'pending') return false;
      this.db.prepare('UPDATE agent_nodes SET review = ? WHERE id = ?').run(decision, agentId);
      this.db
        .prepare('INSERT INTO agent_reviews (root_id, agent_id, parent_id, decision, note, created_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(rootId, agentId, parentId, decision, note, new Date().toISOString());
      return true;
    });
    return tx.immediate();
  }

  /** Children of a parent whose validated report awaits the parent's review. */
  pendingReviews(parentId: string): AgentNodeRow[] {
    return this.db
      .prepare("SELECT * FROM agent_nodes WHERE parent_id = ? AND review = 'pending' ORDER BY created_at, rowid")
      .all(parentId) as AgentNodeRow[];
  }

  /** The latest review note of each reviewed agent of a tree. */
  reviewNotes(rootId: string): Map<string, string> {
    const rows = this.db.prepare('SELECT agent_id, note FROM agent_reviews WHERE root_id = ? ORDER BY rowid').all(rootId) as {
      agent_id: string;
      note: string;
    }[];
    return new Map(rows.map((r) => [r.agent_id, r.note]));
  }

  reviews(agentId: string): ReviewRow[] {
    return this.db
      .prepare('SELECT agent_id, parent_id, decision, note, created_at FROM agent_reviews WHERE agent_id = ? ORDER BY rowid')
      .all(agentId) as ReviewRow[];
  }

  /** A continued child runs again: its report, validation and review start over. */
  restart(id: string, brief: string): void {
    this.db
      .prepare(
        "UPDATE agent_nodes SET status = 'running', brief = ?, report = NULL, validation = NULL, review = NULL, ended_at = NULL WHERE id = ?",
      )
      .run(brief, id);
  }

  // ---- context refs ----

  /**
   * Stores a ref whole, once per tree and id. An id already stored with other content
   * (two agents' tool calls sharing one id) is kept apart under a suffixed id; the id
   * actually used is returned. Content is redacted like everything stored.
   */
  storeRef(rootId: string, ref: ContextRefRow): string {
    const content = redact(ref.content);
    const tx = this.db.transaction((): string => {
      for (let i = 2, id = ref.id; ; id = `${ref.id}#${i++}`) {
        const have = this.ref(rootId, id);
        if (have?.content === content) return id;
        if (!have) {
          this.db
            .prepare('INSERT INTO context_refs (root_id, id, source, content) VALUES (?, ?, ?, ?)')
            .run(rootId, id, ref.source, content);
          return id;
        }
      }
    });
    return tx.immediate();
  }

  /** Grants a stored ref to a child (its parent's own tool result, or one the parent holds). */
  grantRef(rootId: string, agentId: string, refId: string): void {
    this.db.prepare('INSERT OR IGNORE INTO ref_grants (root_id, agent_id, ref_id) VALUES (?, ?, ?)').run(rootId, agentId, refId);
  }

  ref(rootId: string, id: string): ContextRefRow | undefined {
    return this.db.prepare('SELECT id, source, content FROM context_refs WHERE root_id = ? AND id = ?').get(rootId, id) as
      ContextRefRow | undefined;
  }

  /** The ref if it was granted to `agentId`, else undefined. */
  grantedRef(rootId: string, agentId: string, id: string): ContextRefRow | undefined {
    return this.db
      .prepare(
        'SELECT r.id, r.source, r.content FROM context_refs r JOIN ref_grants g ON g.root_id = r.root_id AND g.ref_id = r.id WHERE r.root_id = ? AND g.agent_id = ? AND r.id = ?',
      )
      .get(rootId, agentId, id) as ContextRefRow | undefined;
  }

  heldRefIds(agentId: string): string[] {
    return (this.db.prepare('SELECT ref_id FROM ref_grants WHERE agent_id = ? ORDER BY rowid').all(agentId) as { ref_id: string }[]).map(
      (r) => r.ref_id,
    );
  }

  // ---- stop requests from another process ----

  requestStop(rootId: string, agentId: string): void {
    this.db
      .prepare('INSERT OR REPLACE INTO tree_stop_requests (root_id, agent_id, requested_at) VALUES (?, ?, ?)')
      .run(rootId, agentId, new Date().toISOString());
  }

  /**
   * Takes the stop requests of a tree written since `since` (ISO time; each is handled
   * once). Older ones were meant for an earlier request: left for their command to withdraw.
   */
  takeStopRequests(rootId: string, since: string): string[] {
    const tx = this.db.transaction((): string[] => {
      const ids = (
        this.db.prepare('SELECT agent_id FROM tree_stop_requests WHERE root_id = ? AND requested_at >= ?').all(rootId, since) as {
          agent_id: string;
        }[]
      ).map((r) => r.agent_id);
      if (ids.length) this.db.prepare('DELETE FROM tree_stop_requests WHERE root_id = ? AND requested_at >= ?').run(rootId, since);
      return ids;
    });
    return tx.immediate();
  }

  /** Withdraws a stop request nobody took; false when it was taken meanwhile. */
  withdrawStopRequest(rootId: string, agentId: string): boolean {
    return this.db.prepare('DELETE FROM tree_stop_requests WHERE root_id = ? AND agent_id = ?').run(rootId, agentId).changes > 0;
  }

  /** Whether a stop request is still waiting to be taken. */
  stopRequested(rootId: string, agentId: string): boolean {
    return this.db.prepare('SELECT 1 FROM tree_stop_requests WHERE root_id = ? AND agent_id = ?').get(rootId, agentId) !== undefined;
  }

  nodes(rootId: string): AgentNodeRow[] {
    return this.db.prepare('SELECT * FROM agent_nodes WHERE root_id = ? ORDER BY created_at, rowid').all(rootId) as AgentNodeRow[];
  }
}

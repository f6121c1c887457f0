/**
 * The topology each session last saw (schema 6): stored at the end of every request, so
 * the next request — in this process, a `-c`/`-r` run or a reopened TUI session — can
 * tell the model what changed in the lab meanwhile (src/agent/drift.ts). One row per
 * session, replaced each time; the JSON is src/gns3/topology-diff.ts's SeenTopology (the
 * store does not read it: it keeps what it is given, with the project it belongs to).
 */
import type Database from 'better-sqlite3';

export const SEEN_TOPOLOGY_SCHEMA = `
CREATE TABLE IF NOT EXISTS seen_topology (
  session_id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  topology TEXT NOT NULL,
  seen_at TEXT NOT NULL
);
`;

export class SeenTopologyStore {
  constructor(private readonly db: Database.Database) {}

  get(sessionId: string): { topology: unknown; project_id: string; seen_at: string } | undefined {
    const row = this.db.prepare('SELECT topology, project_id, seen_at FROM seen_topology WHERE session_id = ?').get(sessionId) as
      { topology: string; project_id: string; seen_at: string } | undefined;
    if (!row) return undefined;
    try {
      return { topology: JSON.parse(row.topology) as unknown, project_id: row.project_id, seen_at: row.seen_at };
    } catch {
      return undefined;
    }
  }

  set(sessionId: string, t: { project_id: string }): void {
    this.db
      .transaction(() =>
        this.db
          .prepare('INSERT OR REPLACE INTO seen_topology (session_id, project_id, topology, seen_at) VALUES (?, ?, ?, ?)')
          .run(sessionId, t.project_id, JSON.stringify(t), new Date().toISOString()),
      )
      .immediate();
  }

  /** --fork: the branch starts from what its source last saw */
  copy(from: string, to: string): void {
    this.db
      .prepare(
        'INSERT OR REPLACE INTO seen_topology (session_id, project_id, topology, seen_at) SELECT ?, project_id, topology, seen_at FROM seen_topology WHERE session_id = ?',
      )
      .run(to, from);
  }
}

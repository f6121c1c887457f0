/**
 * The operational state a change's verification read before the change (src/check/state.ts),
 * kept in sessions.db (table created by migration 8, ./migrations.ts) so that
 * `gns3-copilot diff --state` can compare the lab now with how it ran before a request: one
 * row per device and verification, the state as JSON (interfaces, neighbours, routes: no
 * configuration text, no secrets).
 */
import type Database from 'better-sqlite3';

/**
 * What the store needs of a state (src/check/state.ts DeviceState, which sits above sessions):
 * whose it is, and whether it could be read. The rest is kept as JSON and given back as read.
 */
export interface StorableState {
  device: string;
  error?: string;
}

export const STATE_BASELINE_SCHEMA = `
CREATE TABLE IF NOT EXISTS state_baselines (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL,
  request_no INTEGER NOT NULL,
  call_id TEXT,
  device TEXT NOT NULL,
  state TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS state_baselines_session ON state_baselines(session_id, request_no);
`;

/** A device's state as a verification of request `request_no` read it before its change. */
export interface StoredBaseline<S extends StorableState> {
  device: string;
  request_no: number;
  call_id: string | null;
  state: S;
}

export class StateBaselineStore {
  constructor(readonly db: Database.Database) {}

  /** Keeps the states a verification read before its change (a state that could not be read is not kept). */
  save(sessionId: string, requestNo: number, callId: string | undefined, states: readonly StorableState[]): void {
    const insert = this.db.prepare(
      'INSERT INTO state_baselines (session_id, request_no, call_id, device, state, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const at = new Date().toISOString();
    this.db.transaction(() => {
      for (const s of states) if (s.error === undefined) insert.run(sessionId, requestNo, callId ?? null, s.device, JSON.stringify(s), at);
    })();
  }

  /** Per device (first seen first), its state before the first verified change of request `to` or later. */
  firstSince<S extends StorableState>(sessionId: string, to: number): StoredBaseline<S>[] {
    const rows = this.db
      .prepare('SELECT device, request_no, call_id, state FROM state_baselines WHERE session_id = ? AND request_no >= ? ORDER BY id')
      .all(sessionId, to) as { device: string; request_no: number; call_id: string | null; state: string }[];
    const out = new Map<string, StoredBaseline<S>>();
    for (const r of rows) {
      const key = r.device.toLowerCase();
      if (!out.has(key)) out.set(key, { device: r.device, request_no: r.request_no, call_id: r.call_id, state: JSON.parse(r.state) as S });
    }
    return [...out.values()];
  }
}

/**
 * The fault ledger over sessions.db (tables in ./schema.ts): record a fault,
 * find the open one of a category on a target, keep every repair-check run and
 * the time of the first that passed, mark a fault restored.
 *
 * A fault is open until its repair check passes once (fixed) or `faults
 * restore` undoes it (restored).
 */
import type Database from 'better-sqlite3';
import type { CheckInput } from '../check/schema.js';

export type FaultTargetKind = 'device' | 'link';
export type FaultState = 'open' | 'fixed' | 'restored';

/** How a fault is undone: one call of an injection tool, applied through the tool dispatch. */
export interface RestoreCall {
  tool: 'execute_multiple_device_config_commands' | 'manage_gns3_packet_filter';
  args: Record<string, unknown>;
}

export interface NewFault {
  session_id: string;
  project_id: string;
  project_name: string;
  call_id?: string | undefined;
  target_kind: FaultTargetKind;
  /** a device name, or a link label "R1:e0 <-> R2:e0" */
  target: string;
  scenario?: string | undefined;
  category: string;
  difficulty: string;
  /** the configuration lines sent, or the link filters set */
  applied: string[] | Record<string, unknown>;
  restore: RestoreCall;
  repair_check: CheckInput;
}

export interface Fault extends Omit<NewFault, 'call_id' | 'scenario'> {
  id: number;
  call_id: string | null;
  scenario: string | null;
  injected_at: string;
  fixed_at: string | null;
  restored_at: string | null;
  state: FaultState;
}

export interface FaultCheckRow {
  checked_at: string;
  status: 'pass' | 'fail' | 'error';
  evidence: string;
}

interface Row {
  id: number;
  session_id: string;
  project_id: string;
  project_name: string;
  call_id: string | null;
  target_kind: FaultTargetKind;
  target: string;
  scenario: string | null;
  category: string;
  difficulty: string;
  applied: string;
  restore: string;
  repair_check: string;
  injected_at: string;
  fixed_at: string | null;
  restored_at: string | null;
}

const stateOf = (r: { fixed_at: string | null; restored_at: string | null }): FaultState =>
  r.fixed_at ? 'fixed' : r.restored_at ? 'restored' : 'open';

function faultOf(r: Row): Fault {
  return {
    ...r,
    applied: JSON.parse(r.applied) as Fault['applied'],
    restore: JSON.parse(r.restore) as RestoreCall,
    repair_check: JSON.parse(r.repair_check) as CheckInput,
    state: stateOf(r),
  };
}

export class FaultStore {
  constructor(readonly db: Database.Database) {}

  record(f: NewFault, at = new Date()): Fault {
    const info = this.db
      .prepare(
        `INSERT INTO faults (session_id, project_id, project_name, call_id, target_kind, target, scenario, category, difficulty,
           applied, restore, repair_check, injected_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        f.session_id,
        f.project_id,
        f.project_name,
        f.call_id ?? null,
        f.target_kind,
        f.target,
        f.scenario ?? null,
        f.category,
        f.difficulty,
        JSON.stringify(f.applied),
        JSON.stringify(f.restore),
        JSON.stringify(f.repair_check),
        at.toISOString(),
      );
    return this.get(Number(info.lastInsertRowid))!;
  }

  get(id: number): Fault | undefined {
    const r = this.db.prepare('SELECT * FROM faults WHERE id = ?').get(id) as Row | undefined;
    return r ? faultOf(r) : undefined;
  }

  /** Faults oldest first; filtered by project (id or name) and session when given. */
  list(filter: { project?: string | undefined; session?: string | undefined; state?: FaultState } = {}): Fault[] {
    const rows = this.db.prepare('SELECT * FROM faults ORDER BY id').all() as Row[];
    const p = filter.project?.toLowerCase();
    return rows
      .map(faultOf)
      .filter(
        (f) =>
          (!p || f.project_id.toLowerCase() === p || f.project_name.toLowerCase() === p) &&
          (!filter.session || f.session_id.startsWith(filter.session)) &&
          (!filter.state || f.state === filter.state),
      );
  }

  /** The open fault of this category on this device or link of the project, if any (case-insensitive names). */
  openOn(projectId: string, target: string, category: string): Fault | undefined {
    const r = this.db
      .prepare(
        `SELECT * FROM faults WHERE project_id = ? AND lower(target) = lower(?) AND category = ?
           AND fixed_at IS NULL AND restored_at IS NULL ORDER BY id LIMIT 1`,
      )
      .get(projectId, target, category) as Row | undefined;
    return r ? faultOf(r) : undefined;
  }

  /** Keeps one repair-check run; the first pass sets fixed_at (later runs never move it). */
  recordCheck(id: number, c: { status: FaultCheckRow['status']; evidence: string }, at = new Date()): Fault {
    const stamp = at.toISOString();
    this.db
      .transaction(() => {
        this.db
          .prepare('INSERT INTO fault_checks (fault_id, checked_at, status, evidence) VALUES (?, ?, ?, ?)')
          .run(id, stamp, c.status, c.evidence);
        if (c.status === 'pass')
          this.db.prepare('UPDATE faults SET fixed_at = ? WHERE id = ? AND fixed_at IS NULL AND restored_at IS NULL').run(stamp, id);
      })
      .immediate();
    return this.get(id)!;
  }

  checks(id: number): FaultCheckRow[] {
    return this.db
      .prepare('SELECT checked_at, status, evidence FROM fault_checks WHERE fault_id = ? ORDER BY rowid')
      .all(id) as FaultCheckRow[];
  }

  markRestored(id: number, at = new Date()): Fault {
    this.db.prepare('UPDATE faults SET restored_at = ? WHERE id = ? AND restored_at IS NULL').run(at.toISOString(), id);
    return this.get(id)!;
  }

  /** A restored fault is on its device again (a rewind brought it back): open until fixed or restored. */
  reopen(id: number): Fault {
    this.db.prepare('UPDATE faults SET restored_at = NULL WHERE id = ?').run(id);
    return this.get(id)!;
  }
}

/** The fault ledger a session's tools record into (ToolContext.faults): used in inject mode only. */
export interface FaultLedger {
  sessionId: string;
  store: FaultStore;
}

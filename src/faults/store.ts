/**
 * The fault ledger over sessions.db (tables in ./schema.ts): record a fault,
 * find the open one of a category on a target, keep every repair-check run and
 * the time of the first that passed, mark a fault restored. The claims that must
 * hold across processes (./claims.ts) are taken here, in the same IMMEDIATE
 * transaction as what they guard.
 *
 * A fault is open until its repair check passes once (fixed) or `faults
 * restore` (or a rewind) undoes it first (restored_unfixed: it stays in the
 * score, not fixed — undoing a fault is not fixing it).
 */
import type Database from 'better-sqlite3';
import type { CheckInput } from '../check/schema.js';
import { dropClaim, ensureClaimsTable, isClaim, restoreKey, slotKey, takeClaim, type Claim, type ClaimHolder } from './claims.js';

export type FaultTargetKind = 'device' | 'link';
export type FaultState = 'open' | 'fixed' | 'restored_unfixed';

/** How a fault is undone: one call of an injection tool, applied through the tool dispatch. */
export interface RestoreCall {
  tool: 'execute_multiple_device_config_commands' | 'manage_gns3_packet_filter';
  args: Record<string, unknown>;
  /** the device's own lines (read before the fault) its config_commands end with, to put its values back (./own-values.ts) */
  own_lines?: string[];
  /** why the device's own values could not be read at injection time: the restore is the scenario's as written */
  own_unread?: string;
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
  /** when the fault's application ended (the row is written then) */
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
  r.fixed_at ? 'fixed' : r.restored_at ? 'restored_unfixed' : 'open';

/** A (project, target, category) slot reserved for one fault's application, and the open fault found in it at that instant. */
export interface SlotReservation {
  claim: Claim;
  open: Fault | undefined;
}

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
  constructor(readonly db: Database.Database) {
    ensureClaimsTable(db);
  }

  /** Stores an applied fault; with the claim of its slot, given back in the same transaction (the slot is never free in between). */
  record(f: NewFault, at = new Date(), claim?: Claim): Fault {
    const id = this.db
      .transaction(() => {
        const row = this.insert(f, at);
        if (claim) dropClaim(this.db, claim);
        return row;
      })
      .immediate();
    return this.get(id)!;
  }

  private insert(f: NewFault, at: Date): number {
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
    return Number(info.lastInsertRowid);
  }

  /**
   * Reserves the (project, target, category) slot for one application before anything is sent, across calls,
   * clients and processes; the open fault in it (if any) is read in the same transaction. A live holder is returned instead.
   */
  reserveSlot(projectId: string, target: string, category: string, holder: string): SlotReservation | ClaimHolder {
    return this.db
      .transaction((): SlotReservation | ClaimHolder => {
        const claim = takeClaim(this.db, slotKey(projectId, target, category), holder);
        return isClaim(claim) ? { claim, open: this.openOn(projectId, target, category) } : claim;
      })
      .immediate();
  }

  /**
   * Claims a fault for its restore: the fault as it is now and the claim, or why not — restored already
   * (the fault, restored_at set), or a live restore holds it. markRestored gives the claim back.
   */
  claimRestore(id: number, holder: string): { claim: Claim; fault: Fault } | { restored: Fault } | { busy: ClaimHolder } | undefined {
    return this.db
      .transaction(() => {
        const fault = this.get(id);
        if (!fault) return undefined;
        if (fault.restored_at !== null) return { restored: fault };
        const claim = takeClaim(this.db, restoreKey(id), holder);
        return isClaim(claim) ? { claim, fault } : { busy: claim };
      })
      .immediate();
  }

  releaseClaim(claim: Claim): void {
    dropClaim(this.db, claim);
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

  /**
   * Keeps one repair-check run; the first pass sets fixed_at (later runs never move it). A run that
   * started before the fault's application ended (`startedAt` before `injected_at`) read a lab the
   * fault was not in yet: its pass fixes nothing.
   */
  recordCheck(id: number, c: { status: FaultCheckRow['status']; evidence: string }, at = new Date(), startedAt = at): Fault {
    const stamp = at.toISOString();
    this.db
      .transaction(() => {
        this.db
          .prepare('INSERT INTO fault_checks (fault_id, checked_at, status, evidence) VALUES (?, ?, ?, ?)')
          .run(id, stamp, c.status, c.evidence);
        if (c.status === 'pass')
          this.db
            .prepare('UPDATE faults SET fixed_at = ? WHERE id = ? AND fixed_at IS NULL AND restored_at IS NULL AND injected_at <= ?')
            .run(stamp, id, startedAt.toISOString());
      })
      .immediate();
    return this.get(id)!;
  }

  checks(id: number): FaultCheckRow[] {
    return this.db
      .prepare('SELECT checked_at, status, evidence FROM fault_checks WHERE fault_id = ? ORDER BY rowid')
      .all(id) as FaultCheckRow[];
  }

  /** Marks a fault restored (once) and ends any claim on its restore, in one transaction. */
  markRestored(id: number, at = new Date()): Fault {
    this.db
      .transaction(() => {
        this.db.prepare('UPDATE faults SET restored_at = ? WHERE id = ? AND restored_at IS NULL').run(at.toISOString(), id);
        this.db.prepare('DELETE FROM fault_claims WHERE claim = ?').run(restoreKey(id));
      })
      .immediate();
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
  /** running configurations the caller read moments before (device name, lower case → text): the own-values read reuses them */
  configs?: ReadonlyMap<string, string>;
}

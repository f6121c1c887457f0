/**
 * Running faults' repair checks through the deterministic checker (src/check/run.ts):
 * all at once, in parallel, read-only. Every run is kept in the ledger; the first
 * pass is the time the fault was fixed. And the exercise's score.
 */
import { validateCheck } from '../check/load.js';
import { runChecks, type RunChecksOptions } from '../check/run.js';
import type { Check, CheckKind } from '../check/schema.js';
import type { Fault, FaultStore } from './store.js';

export interface RepairResult {
  /** the fault as the ledger holds it after this run */
  fault: Fault;
  kind: CheckKind | undefined;
  status: 'pass' | 'fail' | 'error';
  evidence: string;
  /** this run is the first pass */
  fixed_now: boolean;
}

/** A fault's weight in the score: harder faults are worth more. */
export const DIFFICULTY_POINTS: Record<string, number> = { easy: 1, medium: 2, hard: 3 };
export const pointsOf = (f: Fault) => DIFFICULTY_POINTS[f.difficulty] ?? 1;

export async function runRepairChecks(store: FaultStore, faults: Fault[], opts: RunChecksOptions): Promise<RepairResult[]> {
  const parsed = faults.map((f) => validateCheck({ ...f.repair_check, name: `fault #${f.id}` }));
  const checks: Check[] = parsed.flatMap((p) => (p.ok ? [p.check] : []));
  // read the lab from here on (runChecks reads the topology fresh): a pass before a fault's application ended fixes nothing
  const started = new Date();
  const report = checks.length > 0 ? await runChecks(checks, opts) : undefined;
  let k = 0;
  return faults.map((f, i) => {
    const p = parsed[i]!;
    // a stored check that no longer validates (edited by hand, an older schema) is an error, never a pass
    const r = p.ok
      ? report!.checks[k++]!
      : { kind: undefined, status: 'error' as const, evidence: `repair check does not validate: ${p.issue.message}` };
    const after = store.recordCheck(f.id, { status: r.status, evidence: r.evidence }, new Date(), started);
    return {
      fault: after,
      kind: r.kind,
      status: r.status,
      evidence: r.evidence,
      fixed_now: f.fixed_at === null && after.fixed_at !== null,
    };
  });
}

export interface FaultScore {
  score: number;
  max_score: number;
  open: number;
  fixed: number;
  /** restored before anyone fixed them (state restored_unfixed) */
  restored: number;
}

/**
 * Fixed faults' points over every fault's points. A fault undone before anyone fixed it
 * (restored_unfixed) stays in the exercise, not fixed: resetting the lab after class must
 * not turn every student's unfixed fault into a perfect score.
 */
export function scoreOf(faults: Fault[]): FaultScore {
  return {
    score: faults.filter((f) => f.state === 'fixed').reduce((s, f) => s + pointsOf(f), 0),
    max_score: faults.reduce((s, f) => s + pointsOf(f), 0),
    open: faults.filter((f) => f.state === 'open').length,
    fixed: faults.filter((f) => f.state === 'fixed').length,
    restored: faults.filter((f) => f.state === 'restored_unfixed').length,
  };
}

/** How the fault ledger is shown: `faults list`, `faults show`, `faults check` (text and --json). */
import { count } from '../core/plural.js';
import { sanitizeLine } from '../security/sanitize.js';
import type { FaultScore, RepairResult } from './check.js';
import type { Fault, FaultCheckRow } from './store.js';

const MARK = { open: '✗', fixed: '✓', restored_unfixed: '↺' } as const;
const when = (iso: string | null) => (iso ? iso.replace('T', ' ').slice(0, 19) : '—');
const what = (f: Fault) => `${f.scenario ?? f.category} (${f.category}, ${f.difficulty})`;

export function scoreLine(s: FaultScore): string {
  return `${s.open} open, ${s.fixed} fixed, ${s.restored} restored unfixed · score ${s.score}/${s.max_score}`;
}

/** One fault as --json prints it. */
export function faultJson(f: Fault): Record<string, unknown> {
  return {
    id: f.id,
    state: f.state,
    session_id: f.session_id,
    project: f.project_name,
    project_id: f.project_id,
    target_kind: f.target_kind,
    target: f.target,
    scenario: f.scenario,
    category: f.category,
    difficulty: f.difficulty,
    applied: f.applied,
    restore: f.restore,
    repair_check: f.repair_check,
    injected_at: f.injected_at,
    fixed_at: f.fixed_at,
    restored_at: f.restored_at,
  };
}

export function formatList(faults: Fault[], s: FaultScore): string {
  if (faults.length === 0) return 'no faults in the ledger\n';
  const target = Math.max(6, ...faults.map((f) => f.target.length));
  const rows = faults.map(
    (f) =>
      `${MARK[f.state]} #${String(f.id).padEnd(4)} ${f.state.padEnd(16)} ${sanitizeLine(f.target).padEnd(target)}  ${sanitizeLine(what(f))}  injected ${when(f.injected_at)}` +
      (f.fixed_at ? `  fixed ${when(f.fixed_at)}` : f.restored_at ? `  restored ${when(f.restored_at)}` : ''),
  );
  return `${rows.join('\n')}\n${scoreLine(s)}\n`;
}

export function formatShow(f: Fault, checks: FaultCheckRow[]): string {
  const applied = Array.isArray(f.applied) ? f.applied.join('; ') : JSON.stringify(f.applied);
  const lines = [
    `fault #${f.id}: ${f.state}`,
    `  ${f.target_kind.padEnd(12)} ${f.target} (project ${f.project_name})`,
    `  scenario     ${f.scenario ?? '—'}`,
    `  category     ${f.category}, ${f.difficulty}`,
    `  session      ${f.session_id}`,
    `  applied      ${applied}`,
    `  restore      ${f.restore.tool} ${JSON.stringify(f.restore.args)}`,
    ...(f.restore.own_lines ? [`  own values   ${f.restore.own_lines.join('; ')} (put back after the scenario's restore)`] : []),
    ...(f.restore.own_unread ? [`  own values   not read: ${f.restore.own_unread}`] : []),
    `  repair check ${JSON.stringify(f.repair_check)}`,
    `  injected     ${when(f.injected_at)}`,
    `  fixed        ${when(f.fixed_at)}`,
    `  restored     ${when(f.restored_at)}`,
    `  checks       ${checks.length === 0 ? 'none yet' : count(checks.length, 'run')}`,
    ...checks.map((c) => `    ${when(c.checked_at)} ${c.status.padEnd(5)} ${c.evidence}`),
  ];
  return `${lines.map(sanitizeLine).join('\n')}\n`;
}

/** `faults check --watch`: a fault whose repair check passed for the first time in this round. */
export function formatFixed(r: RepairResult): string {
  const f = r.fault;
  return sanitizeLine(`${MARK.fixed} #${f.id} ${f.target} ${f.scenario ?? f.category} fixed ${when(f.fixed_at)}  ${r.evidence}`);
}

/** `faults check`: every fault of the exercise, the open ones as their repair check says now. */
export function formatCheck(faults: Fault[], results: RepairResult[], s: FaultScore): string {
  if (faults.length === 0) return 'no faults in the ledger\n';
  const now = new Map(results.map((r) => [r.fault.id, r]));
  const rows = faults.map((f) => {
    const r = now.get(f.id);
    const head = `${MARK[f.state]} #${f.id} ${f.target} ${f.scenario ?? f.category}`;
    if (f.state === 'restored_unfixed') return `${head}  restored ${when(f.restored_at)}, never fixed`;
    if (f.state === 'fixed') return `${head}  fixed ${when(f.fixed_at)}${r ? `  ${r.evidence}` : ''}`;
    return `${head}  still present${r ? ` (${r.status})  ${r.evidence}` : ''}`;
  });
  return `${rows.map(sanitizeLine).join('\n')}\n${scoreLine(s)}\n`;
}

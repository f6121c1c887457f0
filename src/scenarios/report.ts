/**
 * What `inject --scenario|--random` prints: per project the faults it plans or applied —
 * scenario, target, values, the lines, the restore and the repair check — as text or as
 * the `--json` report. The restore and repair check of a planned fault are the ones the
 * ledger will record (src/faults/spec.ts `resolveFault`, pure).
 */
import type { Settings } from '../config/schema.js';
import { resolveFault } from '../faults/spec.js';
import { withOwnValues } from '../faults/own-restore.js';
import type { RestoreCall } from '../faults/store.js';
import type { SkillLibrary } from '../skills/loader.js';
import type { InjectOutcome } from './apply.js';
import type { Placement } from './fit.js';

export type FaultRowStatus = 'planned' | 'injected' | 'blocked' | 'error';

export interface FaultRow {
  id?: number;
  status: FaultRowStatus;
  scenario: string;
  category: string;
  difficulty: string;
  target_kind: 'device' | 'link';
  target: string;
  platform?: string;
  parameters: Record<string, string>;
  applied: string[] | Record<string, unknown>;
  restore?: RestoreCall;
  repair_check?: Record<string, unknown>;
  error?: string;
  warning?: string;
}

export interface ProjectReport {
  project: string;
  project_id?: string;
  /** planned: shown, nothing sent; injected: every fault applied; partial: some; error: none */
  status: 'planned' | 'injected' | 'partial' | 'error';
  seed?: string;
  faults: FaultRow[];
  /** `--random`: scenarios left out, with why */
  skipped?: { id: string; reason: string }[];
  error?: string;
}

/** A placement as a report row, with the restore and repair check the ledger will give it. */
export function plannedRow(p: Placement, lib: SkillLibrary, level: Settings['inject_level']): FaultRow {
  const t = p.target;
  const target =
    t.kind === 'device'
      ? { kind: 'device' as const, name: t.name, platform: t.platform, commands: p.applied as string[] }
      : { kind: 'link' as const, label: t.label, linkId: t.link_id, ends: t.ends, filters: p.applied as Record<string, unknown> };
  const r = resolveFault({ scenario: p.scenario.id, parameters: p.values }, target, lib, level);
  // the restore as the ledger will have it: with the device's own values read by the plan
  const restore =
    r.ok && target.kind === 'device' && p.config !== undefined
      ? withOwnValues(r.fault.restore, target.commands, { config: p.config })
      : undefined;
  return {
    status: 'planned',
    scenario: p.scenario.id,
    category: p.scenario.category,
    difficulty: p.scenario.difficulty,
    target_kind: t.kind,
    target: t.kind === 'device' ? t.name : t.label,
    ...(t.kind === 'device' ? { platform: t.platform } : {}),
    parameters: p.values,
    applied: p.applied,
    ...(r.ok ? { restore: restore ?? r.fault.restore, repair_check: r.fault.repair_check } : { error: r.error }),
  };
}

/** The row after the dispatch: the ledger's entry when it was recorded. */
export function outcomeRow(o: InjectOutcome, planned: FaultRow): FaultRow {
  if (o.status === 'injected')
    return {
      ...planned,
      id: o.fault.id,
      status: 'injected',
      target: o.fault.target,
      applied: o.fault.applied,
      restore: o.fault.restore,
      repair_check: o.fault.repair_check,
      ...(o.warning ? { warning: o.warning } : {}),
    };
  return { ...planned, status: o.status, error: o.reason };
}

const linesOf = (applied: FaultRow['applied']): string[] =>
  Array.isArray(applied) ? applied : Object.entries(applied).map(([k, v]) => `${k} ${JSON.stringify(v)}`);

function restoreLines(r: RestoreCall | undefined): string {
  if (!r) return '(none)';
  const cfg = (r.args.device_configs as { config_commands?: string[] }[] | undefined)?.[0]?.config_commands;
  return cfg ? cfg.join(' / ') : `${r.tool} clear`;
}

const MARK: Record<FaultRowStatus, string> = { planned: '·', injected: '✓', blocked: '⊘', error: '✗' };

/** One project's faults as text: a head line, then per fault its lines, restore and repair check. */
export function reportText(r: ProjectReport): string {
  const head = `${r.project}${r.seed !== undefined ? ` (seed ${r.seed})` : ''}: ${
    r.status === 'error' ? `error: ${r.error ?? 'nothing applied'}` : r.status
  }`;
  const out = [head];
  for (const f of r.faults) {
    const values = Object.entries(f.parameters)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    out.push(
      `  ${MARK[f.status]} ${f.id !== undefined ? `#${f.id} ` : ''}${f.scenario} (${f.category}, ${f.difficulty}) on ${f.target}${f.platform ? ` [${f.platform}]` : ''}${values ? `  ${values}` : ''}`,
    );
    for (const l of linesOf(f.applied)) out.push(`      + ${l}`);
    out.push(`      restore: ${restoreLines(f.restore)}`);
    if (f.restore?.own_unread) out.push(`      own values not read (the restore resets to the scenario's values): ${f.restore.own_unread}`);
    if (f.repair_check) out.push(`      repair check: ${JSON.stringify(f.repair_check)}`);
    if (f.error) out.push(`      ${f.status}: ${f.error}`);
    if (f.warning) out.push(`      warning: ${f.warning}`);
  }
  return `${out.join('\n')}\n`;
}

/** The class table's row: one line per project. */
export function classLine(r: ProjectReport): string {
  const faults = r.faults.map((f) => `${MARK[f.status]} ${f.scenario}@${f.target}`).join(', ');
  return `${r.project.padEnd(16)} ${r.status.padEnd(8)} ${r.status === 'error' ? (r.error ?? '') : faults}`;
}

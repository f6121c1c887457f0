/**
 * The lines a session's rewind (rewind-report.ts) and a named checkpoint's restore
 * (named-report.ts) print alike: a device's status, its plan or what remains, the topology
 * changes. Each report words what is its own (why a device has nothing to go back to, why a
 * node or link would be deleted) and passes it in.
 */
import type { TopologyPlan } from '../checkpoints/plan.js';
import type { DeviceOutcome, DeviceReport } from './restore-engine.js';

const STATUS_TEXT: Record<Exclude<DeviceOutcome, 'no_checkpoint'>, string> = {
  unchanged: 'unchanged',
  planned: 'to restore',
  restored: 'restored',
  remaining: 'NOT fully restored',
  blocked: 'not applied',
  review: 'review by hand',
  error: 'error',
};

/** How the report words a device that has no saved configuration to go back to. */
export interface ReportWords {
  /** `no checkpoint` (a session's rewind), `not saved` (a named checkpoint) */
  noCheckpoint: string;
}

const statusLine = (
  d: DeviceReport,
  words: ReportWords,
  status = d.status === 'no_checkpoint' ? words.noCheckpoint : STATUS_TEXT[d.status],
) => `${d.name}: ${status}${d.error ? ` — ${d.error}` : ''}`;

/**
 * One device in a plan: for a diff its status (`changed` where a restore would send something)
 * and diff, for a restore also the commands it sends, and what is still different after one.
 * Starts with a blank line that sets the device apart.
 */
export function devicePlanLines(d: DeviceReport, kind: 'diff' | 'restore', words: ReportWords): string[] {
  const out = ['', kind === 'diff' && d.status === 'planned' ? statusLine(d, words, 'changed') : statusLine(d, words)];
  if (d.diff) out.push(d.diff);
  if (kind === 'restore' && d.display.length > 0 && d.status !== 'restored')
    out.push(`commands${d.status === 'review' ? ' to review' : ''}:`, ...d.display.map((c) => `  ${c}`));
  if (d.status === 'remaining') out.push('still different:', ...d.remaining.map((l) => `  ${l}`));
  return out;
}

/** One device in the short outcome the TUI prints after a restore (its plan was shown before). */
export function deviceOutcomeLines(d: DeviceReport, words: ReportWords): string[] {
  return [`  ${statusLine(d, words)}`, ...(d.status === 'remaining' ? d.remaining.map((l) => `    ${l}`) : [])];
}

/** The topology changes of a plan; `deleted` says why a node or link would be deleted. */
export function topologyChangeLines(t: TopologyPlan, deleted: string): string[] {
  return [
    ...t.delete_links.map((l) => `  delete link ${l.label} (${deleted})`),
    ...t.delete_nodes.map((n) => `  delete node ${n.name} (${deleted})`),
    ...t.rename.map((r) => `  rename ${r.from} → ${r.to}`),
    ...t.power.map((s) => `  ${s.name}: ${s.from} → ${s.to}`),
    ...t.filters.map((f) => `  link ${f.label}: filters ${JSON.stringify(f.from)} → ${JSON.stringify(f.to)}`),
  ];
}

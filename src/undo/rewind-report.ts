/** The text form of a diff or rewind report (stdout of `diff`/`rewind` without --json, and the TUI's notices). */
import type { RewindReport, TopologyReport } from './rewind.js';
import { deviceOutcomeLines, devicePlanLines, topologyChangeLines, type ReportWords } from './report-lines.js';

const WORDS: ReportWords = { noCheckpoint: 'no checkpoint' };

function topologyLines(t: TopologyReport): string[] {
  return [...topologyChangeLines(t, 'created by the session'), ...t.errors.map((e) => `  error: ${e}`)];
}

const ids = (xs: number[]) => xs.map((id) => `#${id}`).join(', ');

/** Where the rewind goes: just before a request, or (a regression's rewind) just before the regressed call. */
const rewindTarget = (r: RewindReport) =>
  r.checkpoints ? `just before the regressed call of request ${r.to}` : `just before request ${r.to}`;

/** The inject-mode faults the rewind undid (marked restored in the ledger) or brought back (open again), if any. */
const faultsLine = (r: RewindReport): string | undefined => {
  const parts = [
    ...(r.faults_restored?.length ? [`faults restored in the ledger: ${ids(r.faults_restored)}`] : []),
    ...(r.faults_reopened?.length ? [`faults open again in the ledger (the rewind brought them back): ${ids(r.faults_reopened)}`] : []),
  ];
  return parts.length ? parts.join('\n') : undefined;
};

export function reportText(r: RewindReport, kind: 'diff' | 'rewind'): string {
  const out: string[] = [];
  const head = kind === 'diff' ? `changes since just before request ${r.to}` : `rewind to ${rewindTarget(r)}`;
  out.push(`session ${r.session_id.slice(0, 8)}: ${head}${r.resumed ? ' (resumed)' : ''}`);
  if (r.devices.length === 0 && out.length === 1) out.push('no device was changed since then');
  for (const d of r.devices) out.push(...devicePlanLines(d, kind === 'diff' ? 'diff' : 'restore', WORDS));
  const topo = topologyLines(r.topology);
  if (topo.length > 0) out.push('', `topology: ${r.topology.status}`, ...topo);
  const faults = faultsLine(r);
  if (faults) out.push('', faults);
  return out.join('\n') + '\n';
}

/** After a rewind: per device `restored` or what remains, and the topology — short, for the TUI (the plan was shown before). */
export function rewindSummary(r: RewindReport): { text: string; complete: boolean } {
  if (r.blocked) return { text: `✗ rewind to ${rewindTarget(r)} not applied: ${r.blocked.reason}`, complete: false };
  const changed = r.devices.some((d) => d.status !== 'unchanged') || r.topology.status !== 'unchanged';
  const faults = faultsLine(r);
  if (!changed)
    return { text: `nothing to rewind: the lab is as it was ${rewindTarget(r)}${faults ? `\n  ${faults}` : ''}`, complete: true };
  const out: string[] = [];
  let complete = true;
  for (const d of r.devices) {
    if (d.status === 'remaining' || d.status === 'error' || d.status === 'review' || d.status === 'no_checkpoint') complete = false;
    out.push(...deviceOutcomeLines(d, WORDS));
  }
  if (r.topology.status !== 'unchanged') {
    if (r.topology.status !== 'restored') complete = false;
    out.push(`  topology: ${r.topology.status}`, ...r.topology.errors.map((e) => `    ${e}`));
  }
  if (faults) out.push(`  ${faults}`);
  const head = `${complete ? '✓' : '✗'} rewind to ${rewindTarget(r)}${r.request_no !== undefined ? ` (request ${r.request_no})` : ''}${r.resumed ? ', resumed' : ''}: ${complete ? 'restored' : 'not everything was restored'}`;
  return { text: [head, ...out].join('\n'), complete };
}

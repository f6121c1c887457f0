/** The text and JSON of `checkpoint save|list|show|diff|restore` (stdout without --json, and the TUI's notices). */
import type { SaveReport } from '../checkpoints/named-save.js';
import type { LabCheckpoint, LabCheckpointSummary, LabRestoreRow } from '../checkpoints/named-types.js';
import { deviceOutcomeLines, devicePlanLines, topologyChangeLines, type ReportWords } from './report-lines.js';
import type { NamedRestoreReport, NamedTopologyReport } from './named-restore.js';

const WORDS: ReportWords = { noCheckpoint: 'not saved' };

export function saveText(r: SaveReport): string {
  const saved = r.devices.filter((d) => d.status === 'saved');
  const out = [
    `checkpoint ${r.checkpoint} of project ${r.project}${r.replaced ? ' (replaced)' : ''}: ${saved.length} of ${r.devices.length} node(s) saved, topology ${r.nodes} node(s) ${r.links} link(s), ${(r.duration_ms / 1000).toFixed(1)} s`,
  ];
  for (const d of r.devices)
    out.push(
      d.status === 'saved'
        ? `  ${d.name}: saved${d.platform ? ` (${d.platform}, ${d.lines ?? 0} lines)` : ''}`
        : `  ${d.name}: NOT saved — ${d.error ?? 'not captured'}`,
    );
  return out.join('\n') + '\n';
}

export function listText(project: string, list: LabCheckpointSummary[]): string {
  if (list.length === 0) return `no checkpoints for project ${project} (gns3-copilot checkpoint save NAME)\n`;
  const width = Math.max(4, ...list.map((c) => c.name.length));
  const rows = list.map(
    (c) =>
      `${c.name.padEnd(width)}  ${c.created_at.slice(0, 19).replace('T', ' ')}  ${c.saved} saved${c.not_saved ? `, ${c.not_saved} not saved` : ''}, ${c.nodes} nodes ${c.links} links${c.note ? `  ${c.note}` : ''}`,
  );
  return [`${'NAME'.padEnd(width)}  SAVED (UTC)          DEVICES`, ...rows].join('\n') + '\n';
}

export function showText(cp: LabCheckpoint, restores: LabRestoreRow[]): string {
  const out = [
    `checkpoint ${cp.name} of project ${cp.project_name}, saved ${cp.created_at}${cp.note ? `\nnote: ${cp.note}` : ''}`,
    `topology: ${cp.topology.nodes.length} node(s), ${cp.topology.links.length} link(s)`,
  ];
  for (const d of cp.devices)
    out.push(
      d.config !== null
        ? `  ${d.device}: saved (${d.platform ?? 'unknown platform'}, ${d.config === '' ? 0 : d.config.split('\n').length} lines)`
        : `  ${d.device}: NOT saved — ${d.error ?? 'not captured'}`,
    );
  for (const r of restores)
    out.push(
      `restore ${r.started_at}${r.devices ? ` (${r.devices.join(', ')})` : ''}: ${r.status === 'running' ? 'did not finish' : r.status}`,
    );
  return out.join('\n') + '\n';
}

/** `checkpoint show --json`: the checkpoint, every device's configuration (or why it was not saved), its restores. */
export function showJson(cp: LabCheckpoint, restores: LabRestoreRow[]): Record<string, unknown> {
  const { id: _id, ...rest } = cp;
  return { ...rest, restores: restores.map(({ id: _rid, checkpoint_id: _cid, ...r }) => r) };
}

function topologyLines(t: NamedTopologyReport): string[] {
  return [
    ...topologyChangeLines(t, 'not in the checkpoint'),
    ...t.missing_nodes.map((n) => `  node ${n.name} was deleted since: a restore cannot create it again`),
    ...t.missing_links.map((l) => `  link ${l.label} was deleted since: a restore cannot create it again`),
    ...t.errors.map((e) => `  error: ${e}`),
  ];
}

export function namedReportText(r: NamedRestoreReport, kind: 'diff' | 'restore'): string {
  const head = kind === 'diff' ? `changes since checkpoint ${r.checkpoint}` : `restore of checkpoint ${r.checkpoint}`;
  const out = [`project ${r.project}: ${head} (saved ${r.saved_at})${r.resumed ? ' (resumed)' : ''}`];
  for (const d of r.devices) out.push(...devicePlanLines(d, kind, WORDS));
  const topo = topologyLines(r.topology);
  if (topo.length > 0) out.push('', `topology: ${r.topology.status}`, ...topo);
  return out.join('\n') + '\n';
}

/** `checkpoint diff|restore --json`. */
export function namedReportJson(r: NamedRestoreReport): Record<string, unknown> {
  return {
    checkpoint: r.checkpoint,
    project: r.project,
    project_id: r.project_id,
    saved_at: r.saved_at,
    ...(r.resumed ? { resumed: true } : {}),
    devices: r.devices.map((d) => ({
      name: d.name,
      status: d.status === 'no_checkpoint' ? 'not_saved' : d.status,
      ...(d.platform ? { platform: d.platform } : {}),
      commands: d.commands,
      remaining: d.remaining,
      diff: d.diff,
      ...(d.error ? { error: d.error } : {}),
    })),
    topology: r.topology,
    ...(r.blocked ? { blocked: r.blocked.reason } : {}),
  };
}

/** After a restore, for the TUI: per device restored or what remains (the plan was shown before). */
export function namedRestoreSummary(r: NamedRestoreReport): { text: string; complete: boolean } {
  if (r.blocked) return { text: `✗ restore of checkpoint ${r.checkpoint} not applied: ${r.blocked.reason}`, complete: false };
  const changed = r.devices.some((d) => d.status !== 'unchanged' && d.status !== 'no_checkpoint') || r.topology.status !== 'unchanged';
  if (!changed) return { text: `nothing to restore: the lab is as checkpoint ${r.checkpoint} saved it`, complete: true };
  let complete = true;
  const out: string[] = [];
  for (const d of r.devices) {
    if (d.status === 'remaining' || d.status === 'error' || d.status === 'review') complete = false;
    out.push(...deviceOutcomeLines(d, WORDS));
  }
  if (r.topology.status !== 'unchanged') {
    if (r.topology.status !== 'restored') complete = false;
    out.push(`  topology: ${r.topology.status}`, ...r.topology.errors.map((e) => `    ${e}`));
  }
  const head = `${complete ? '✓' : '✗'} restore of checkpoint ${r.checkpoint}${r.resumed ? ', resumed' : ''}: ${complete ? 'restored' : 'not everything was restored'}`;
  return { text: [head, ...out].join('\n'), complete };
}

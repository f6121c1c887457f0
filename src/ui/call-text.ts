/**
 * Turns tool arguments and outputs into what a person scans: a one-line
 * argument summary (`R1, R2, R3: show ip ospf neighbor`) from what the tool declares
 * it touches (src/tools/targets.ts), the note under a
 * failed call and, for the device tools' results, small table rows. Pure
 * functions; the views only lay them out.
 */
import { truncate } from './format.js';
import type { DeviceResult } from '../devices/types.js';
import { targetsOf } from '../tools/targets.js';
import { packetFilterSummary } from '../tools/filter-summary.js';
import type { TargetDevice, TargetLink, TargetNode } from '../core/targets.js';
import { sanitizeDeep, sanitizeText } from '../security/sanitize.js';
import type { ApprovalRequest } from '../core/api.js';
import type { DevicePreview } from '../core/preview.js';
import { PREVIEW_HEADING, PREVIEW_NO_CHANGE, previewDiffBody } from '../checkpoints/preview-text.js';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);

/** Devices and their commands: groups devices that run the same commands. */
function summarizeDevices(devices: TargetDevice[]): string | undefined {
  const groups = new Map<string, string[]>();
  for (const d of devices) {
    const key = d.commands.join('; ');
    const names = groups.get(key) ?? [];
    names.push(d.name);
    groups.set(key, names);
  }
  if (groups.size === 0) return undefined;
  return [...groups.entries()].map(([cmds, names]) => (cmds ? `${names.join(', ')}: ${cmds}` : names.join(', '))).join(' | ');
}

const nodeText = (n: TargetNode): string =>
  n.newName ? `${n.name ?? '?'} → ${n.newName}` : n.template && n.name ? `${n.name} (${n.template})` : (n.name ?? n.template ?? '?');

const linkText = (l: TargetLink): string => (l.b !== undefined ? `${l.a} ↔ ${l.b}` : l.a);

/** Generic fallback: `key=value` pairs, scalars only, compact. */
function summarizeGeneric(args: Obj): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(args)) {
    if (v === undefined || v === null) continue;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') parts.push(`${k}=${String(v)}`);
    else parts.push(`${k}=${JSON.stringify(v)}`);
  }
  return parts.join(' ');
}

export function summarizeArgs(name: string, args: Record<string, unknown>, max = 70): string {
  const t = targetsOf(name, args);
  let text: string | undefined;
  if (name === 'manage_gns3_packet_filter' && t?.links?.[0]) {
    text = `${str(args.action) ?? 'get'} ${t.links[0].a}${isObj(args.filters) ? ' ' + JSON.stringify(args.filters) : ''}`;
  } else if (t?.devices?.length && !t.nodes) text = summarizeDevices(t.devices);
  else if (t?.links?.length) text = t.links.map(linkText).join(', ');
  else if (t?.nodes?.length) text = t.nodes.map(nodeText).join(', ');
  return truncate(text ?? summarizeGeneric(args), max);
}

export interface DeviceRow {
  device: string;
  status: string;
  commands: number;
  duration_ms?: number;
  /** first error or blocked command, empty when all went well */
  note: string;
}

export interface DeviceCommandOutput {
  device: string;
  command: string;
  status: string;
  output: string;
  error?: string;
}

/**
 * The devices of a device tool's result (`{"status":…,"devices":[DeviceResult…]}`,
 * src/tools/devices/shared.ts); undefined for any other output.
 */
function devicesOf(output: string): DeviceResult[] | undefined {
  let parsed: unknown;
  try {
    // parsing turns \u001b escapes back into raw controls: clean what the parse produced
    parsed = sanitizeDeep(JSON.parse(output));
  } catch {
    return undefined;
  }
  const devices = isObj(parsed) ? parsed.devices : undefined;
  return Array.isArray(devices) &&
    devices.length > 0 &&
    devices.every((d) => isObj(d) && typeof d.device_name === 'string' && Array.isArray(d.results))
    ? (devices as DeviceResult[])
    : undefined;
}

/** Rows for the per-device results table; undefined when the output is not a device tool's. */
export function deviceRows(output: string): DeviceRow[] | undefined {
  return devicesOf(output)?.map((d) => {
    const firstBad = d.results.find((r) => r.status !== 'success');
    const note =
      d.error ??
      (firstBad ? `${firstBad.command}: ${firstBad.error ?? firstBad.status}` : d.blocked.length ? `blocked: ${d.blocked.join(', ')}` : '');
    return { device: d.device_name, status: d.status, commands: d.results.length, duration_ms: d.duration_ms, note };
  });
}

/** Every command's output, for the expanded view. */
export function deviceOutputs(output: string): DeviceCommandOutput[] | undefined {
  return devicesOf(output)?.flatMap((d) =>
    d.results.map((r) => ({
      device: d.device_name,
      command: r.command,
      status: r.status,
      output: r.output,
      ...(r.error !== undefined ? { error: r.error } : {}),
    })),
  );
}

/**
 * The line under a call that did not succeed: the tool's own display line, else
 * the message of an error result (`{"status":…,"error":"…"}`, the shape of every
 * refusal and failure), else the output's first line.
 */
export function resultNote(output: string, display: string | undefined): string | undefined {
  if (display) return display;
  try {
    const parsed = JSON.parse(output) as unknown;
    if (isObj(parsed) && typeof parsed.error === 'string') return sanitizeText(parsed.error);
  } catch {
    // plain text output
  }
  return output.split('\n').find((l) => l.trim() !== '');
}

/** Approval view: device → command lines, nodes or links, else a generic pretty dump of the arguments. */
export function approvalLines(name: string, args: Record<string, unknown>): { target: string; lines: string[] }[] {
  const t = targetsOf(name, args);
  if (t?.devices?.length && !t.nodes) return t.devices.map((d) => ({ target: d.name, lines: d.commands }));
  if (t?.nodes?.length) return [{ target: name, lines: t.nodes.map(nodeText) }];
  if (t?.links?.length && name !== 'manage_gns3_packet_filter') return [{ target: name, lines: t.links.map(linkText) }];
  const json = JSON.stringify(args, null, 2).split('\n');
  // a link filter's arguments are a dozen lines of JSON: what the call does comes first, in words
  const summary = name === 'manage_gns3_packet_filter' ? packetFilterSummary(args) : undefined;
  return [{ target: name, lines: summary ? [summary, ...json] : json }];
}

/** A line of the approval box and how it is coloured. */
export interface ApprovalRow {
  text: string;
  tone?: 'ok' | 'bad' | 'muted';
}

/** The preview under a device's commands: the diff they would make (header lines dropped), or why there is none. */
function previewRows(p: DevicePreview): ApprovalRow[] {
  if (p.error) return [{ text: p.error, tone: 'muted' }];
  if (!p.diff) return [{ text: PREVIEW_NO_CHANGE, tone: 'muted' }];
  return [
    { text: PREVIEW_HEADING, tone: 'muted' },
    ...previewDiffBody(p.diff).map((text): ApprovalRow =>
      text.startsWith('+')
        ? { text, tone: 'ok' }
        : text.startsWith('-')
          ? { text, tone: 'bad' }
          : text.startsWith('@@')
            ? { text, tone: 'muted' }
            : { text },
    ),
  ];
}

/** The approval box's groups: per device its commands, then the preview of the diff they would make. */
export function approvalRows(req: Pick<ApprovalRequest, 'name' | 'args' | 'preview'>): { target: string; rows: ApprovalRow[] }[] {
  return approvalLines(req.name, req.args).map((g) => {
    const p = req.preview?.find((x) => x.device === g.target);
    return { target: g.target, rows: [...g.lines.map((text) => ({ text })), ...(p ? previewRows(p) : [])] };
  });
}

/**
 * Turns tool arguments and outputs into what a person scans: a one-line
 * argument summary (`R1, R2, R3: show ip ospf neighbor`), the note under a
 * failed call and, for the device tools' results, small table rows. Pure
 * functions; the views only lay them out.
 */
import { truncate } from './format.js';
import type { DeviceResult } from '../devices/types.js';
import { sanitizeDeep, sanitizeText } from '../security/sanitize.js';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);

/** Device command lists: groups devices that run the same commands. */
function summarizeDeviceConfigs(list: unknown[]): string | undefined {
  const groups = new Map<string, string[]>();
  for (const item of list) {
    if (!isObj(item)) continue;
    const device = str(item.device_name) ?? str(item.name) ?? '?';
    const cmds = item.commands ?? item.config_commands ?? item.command;
    const cmdList = Array.isArray(cmds) ? cmds.map(textOf) : cmds === undefined ? [] : [textOf(cmds)];
    const key = cmdList.join('; ');
    const devices = groups.get(key) ?? [];
    devices.push(device);
    groups.set(key, devices);
  }
  if (groups.size === 0) return undefined;
  return [...groups.entries()].map(([cmds, devices]) => (cmds ? `${devices.join(', ')}: ${cmds}` : devices.join(', '))).join(' | ');
}

function summarizeNodes(list: unknown[]): string {
  return list
    .map((n) => {
      if (!isObj(n)) return String(n);
      const name = str(n.name) ?? str(n.node) ?? str(n.node_name) ?? str(n.node_id);
      const template = str(n.template);
      const newName = str(n.new_name);
      if (newName) return `${name ?? '?'} → ${newName}`;
      if (template && name) return `${name} (${template})`;
      return name ?? template ?? JSON.stringify(n);
    })
    .join(', ');
}

function summarizeLinks(list: unknown[]): string {
  return list
    .map((l) => {
      if (!isObj(l)) return String(l);
      const a = [str(l.node_a), str(l.port_a)].filter(Boolean).join(' ');
      const b = [str(l.node_b), str(l.port_b)].filter(Boolean).join(' ');
      return `${a} ↔ ${b}`;
    })
    .join(', ');
}

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
  let text: string | undefined;
  if (Array.isArray(args.device_configs)) text = summarizeDeviceConfigs(args.device_configs);
  else if (Array.isArray(args.links)) text = summarizeLinks(args.links);
  else if (Array.isArray(args.nodes)) text = summarizeNodes(args.nodes);
  else if (name === 'manage_gns3_packet_filter' && str(args.link)) {
    text = `${str(args.action) ?? 'get'} ${str(args.link)}${isObj(args.filters) ? ' ' + JSON.stringify(args.filters) : ''}`;
  }
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

/** Approval view: device → command lines, or a generic pretty dump of the arguments. */
export function approvalLines(name: string, args: Record<string, unknown>): { target: string; lines: string[] }[] {
  if (Array.isArray(args.device_configs)) {
    return args.device_configs.filter(isObj).map((d) => {
      const cmds = d.config_commands ?? d.commands;
      return {
        target: str(d.device_name) ?? '?',
        lines: Array.isArray(cmds) ? cmds.map(textOf) : cmds === undefined ? [] : [textOf(cmds)],
      };
    });
  }
  if (Array.isArray(args.nodes)) return [{ target: name, lines: summarizeNodes(args.nodes).split(', ') }];
  if (Array.isArray(args.links)) return [{ target: name, lines: summarizeLinks(args.links).split(', ') }];
  return [{ target: name, lines: JSON.stringify(args, null, 2).split('\n') }];
}

/** A command as the model sent it: a string as it is, anything else as JSON. */
function textOf(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

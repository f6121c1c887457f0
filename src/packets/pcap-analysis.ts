/**
 * Turns pcap bytes into a compact, model-friendly analysis: a protocol hierarchy and
 * conversation summary plus one row per (filtered) packet. Pure tshark work on a file;
 * the capture itself happens elsewhere (ProjectScope.capture).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PcapCounter } from '../gns3/pcap.js';
import { CopilotError } from '../errors.js';
import { displayFilterError, firstErrorLine, runTshark, TsharkError, unknownFields } from './tshark.js';

export const DEFAULT_FIELDS = [
  'frame.number',
  'frame.time_relative',
  '_ws.col.Source',
  '_ws.col.Destination',
  '_ws.col.Protocol',
  'frame.len',
  '_ws.col.Info',
];

export interface AnalysisOptions {
  display_filter?: string;
  fields?: string[];
  max_packets_output?: number;
  /** whole analysis budget (all tshark runs) */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface ProtocolCount {
  protocol: string; // "eth:ip:tcp"
  frames: number;
  bytes: number;
}

export interface Conversation {
  a: string;
  b: string;
  frames: number;
  bytes: string;
  frames_a_to_b: number;
  frames_b_to_a: number;
}

export interface Analysis {
  packets_captured: number;
  bytes: number;
  summary: { protocols: ProtocolCount[]; ip_conversations: Conversation[]; eth_conversations?: Conversation[] };
  display_filter?: string;
  packets_matched: number;
  fields: string[];
  rows: string[][];
  rows_truncated: boolean;
  notes: string[];
}

/** Input problems the model can fix (bad filter, unknown field): reported, not thrown. */
export class AnalysisInputError extends CopilotError {
  constructor(
    message: string,
    readonly detail: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

const MAX_CELL = 240;
const MAX_ROWS_CHARS = 24_000;

/** Check the filter and fields before spending a capture on them. */
export async function validateAnalysisInput(opts: { display_filter?: string; fields?: string[] }, signal?: AbortSignal): Promise<void> {
  if (opts.fields && opts.fields.length > 0) {
    const bad = await unknownFields(opts.fields);
    if (bad.length > 0)
      throw new AnalysisInputError(`unknown tshark field${bad.length > 1 ? 's' : ''}: ${bad.join(', ')}`, { invalid_fields: bad });
  }
  if (opts.display_filter) {
    const dir = mkdtempSync(join(tmpdir(), 'gns3-copilot-filter-'));
    try {
      const err = await displayFilterError(opts.display_filter, dir, signal);
      if (err) throw new AnalysisInputError(`invalid display filter: ${err}`, { display_filter: opts.display_filter });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

export async function analyzePcap(pcap: Uint8Array, opts: AnalysisOptions = {}): Promise<Analysis> {
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  const remaining = () => {
    const ms = deadline - Date.now();
    if (ms <= 0) throw new TsharkError('tshark analysis exceeded its time limit');
    return ms;
  };
  const notes: string[] = [];
  const counter = new PcapCounter();
  counter.push(pcap);
  let data: Uint8Array = pcap;
  let captured = counter.packets;
  if (!counter.invalid && counter.completeBytes < pcap.length && counter.completeBytes >= 24) {
    // A stream cut mid-record: keep the complete packets rather than make tshark fail.
    data = counter.slice();
    notes.push('last packet was incomplete and was dropped');
  }
  if (pcap.length < 24) {
    return emptyAnalysis(opts, ['no traffic was captured on the link in the capture window']);
  }
  const dir = mkdtempSync(join(tmpdir(), 'gns3-copilot-pcap-'));
  try {
    const file = join(dir, 'capture.pcap');
    writeFileSync(file, data);
    const fields = opts.fields && opts.fields.length > 0 ? withFrameNumber(opts.fields) : DEFAULT_FIELDS;
    const args = ['-r', file];
    if (opts.display_filter) args.push('-Y', opts.display_filter);
    args.push('-T', 'fields', '-E', 'separator=/t', '-E', 'occurrence=a', '-E', 'aggregator=,', '-E', 'quote=n');
    for (const f of fields) args.push('-e', f);
    // Two independent passes; run them side by side (tshark start-up dominates small captures).
    const [summaryRun, rowsRun] = await Promise.all([
      runTshark(['-r', file, '-q', '-z', 'io,phs', '-z', 'conv,ip', '-z', 'conv,eth'], { timeoutMs: remaining(), signal: opts.signal }),
      runTshark(args, { timeoutMs: remaining(), signal: opts.signal, maxStdoutBytes: 8 * 1024 * 1024 }),
    ]);
    if (summaryRun.timedOut || rowsRun.timedOut) throw new TsharkError('tshark analysis exceeded its time limit');
    if (summaryRun.code !== 0)
      throw new TsharkError(`tshark could not read the capture: ${firstErrorLine(summaryRun.stderr) || `exit ${summaryRun.code}`}`);
    const summary = parseSummary(summaryRun.stdout);
    if (counter.invalid) captured = summary.protocols[0]?.frames ?? 0; // pcapng or unknown: trust tshark
    if (rowsRun.code !== 0 && !rowsRun.truncated) {
      const reason = firstErrorLine(rowsRun.stderr) || `exit ${rowsRun.code}`;
      if (/fields? aren't valid|neither a field nor a protocol|filter/i.test(reason))
        throw new AnalysisInputError(reason, { display_filter: opts.display_filter, fields });
      throw new TsharkError(`tshark failed: ${reason}`);
    }
    const lines = rowsRun.stdout.split('\n').filter((l) => l !== '');
    const max = Math.max(1, Math.min(opts.max_packets_output ?? 50, 1000));
    const rows: string[][] = [];
    let chars = 0;
    let cut = lines.length > max || rowsRun.truncated;
    for (const line of lines.slice(0, max)) {
      const row = line.split('\t').map((c) => (c.length > MAX_CELL ? `${c.slice(0, MAX_CELL)}…` : c));
      chars += row.reduce((n, c) => n + c.length + 3, 2);
      if (chars > MAX_ROWS_CHARS) {
        cut = true;
        break;
      }
      rows.push(row);
    }
    if (captured === 0) notes.push('no traffic was captured on the link in the capture window');
    else if (opts.display_filter && lines.length === 0) notes.push('no captured packet matched the display filter');
    if (cut)
      notes.push(
        `showing ${rows.length} of ${rowsRun.truncated ? 'many' : lines.length} matching packets; narrow display_filter or raise max_packets_output`,
      );
    return {
      packets_captured: captured,
      bytes: data.length,
      summary,
      ...(opts.display_filter ? { display_filter: opts.display_filter } : {}),
      packets_matched: rowsRun.truncated ? rows.length : lines.length,
      fields,
      rows,
      rows_truncated: cut,
      notes,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function emptyAnalysis(opts: AnalysisOptions, notes: string[]): Analysis {
  return {
    packets_captured: 0,
    bytes: 0,
    summary: { protocols: [], ip_conversations: [] },
    ...(opts.display_filter ? { display_filter: opts.display_filter } : {}),
    packets_matched: 0,
    fields: opts.fields && opts.fields.length > 0 ? withFrameNumber(opts.fields) : DEFAULT_FIELDS,
    rows: [],
    rows_truncated: false,
    notes,
  };
}

function withFrameNumber(fields: string[]): string[] {
  return fields.includes('frame.number') ? [...fields] : ['frame.number', ...fields];
}

// ------------------------------------------------------------ tshark -z parsing

const PHS_LINE = /^(\s*)(\S+)\s+frames:(\d+)\s+bytes:(\d+)\s*$/;
const SIZE = String.raw`([\d.,]+ (?:bytes|[kMGT]i?B))`;
const CONV_LINE = new RegExp(String.raw`^(\S+)\s+<->\s+(\S+)\s+(\d+)\s+${SIZE}\s+(\d+)\s+${SIZE}\s+(\d+)\s+${SIZE}\s+`);

export function parseSummary(out: string): Analysis['summary'] {
  const protocols: ProtocolCount[] = [];
  const ip: Conversation[] = [];
  const eth: Conversation[] = [];
  let section: 'phs' | 'ip' | 'eth' | undefined;
  const stack: { depth: number; name: string }[] = [];
  for (const line of out.split('\n')) {
    if (/^Protocol Hierarchy Statistics/.test(line)) section = 'phs';
    else if (/^IPv4 Conversations/.test(line)) section = 'ip';
    else if (/^Ethernet Conversations/.test(line)) section = 'eth';
    else if (section === 'phs') {
      const m = PHS_LINE.exec(line);
      if (!m) continue;
      const depth = m[1]!.length;
      while (stack.length > 0 && stack[stack.length - 1]!.depth >= depth) stack.pop();
      stack.push({ depth, name: m[2]! });
      protocols.push({ protocol: stack.map((s) => s.name).join(':'), frames: Number(m[3]), bytes: Number(m[4]) });
    } else if (section === 'ip' || section === 'eth') {
      const m = CONV_LINE.exec(line);
      if (!m) continue;
      // tshark's columns: "<-" is frames toward A (from B), "->" frames from A.
      const conv = { a: m[1]!, b: m[2]!, frames: Number(m[7]), bytes: m[8]!, frames_a_to_b: Number(m[5]), frames_b_to_a: Number(m[3]) };
      (section === 'ip' ? ip : eth).push(conv);
    }
  }
  const cap = (c: Conversation[]) => c.sort((x, y) => y.frames - x.frames).slice(0, 20);
  return {
    protocols: protocols.slice(0, 60),
    ip_conversations: cap(ip),
    // MAC pairs only help when there is little or no IP traffic (L2 labs, ARP problems).
    ...(ip.length === 0 && eth.length > 0 ? { eth_conversations: cap(eth) } : {}),
  };
}

/**
 * The topology as compact text for the system prompt's {{topology_info}} (and the text form of
 * gns3_topology_reader): one line per node — name, then only what differs from the lab's most
 * common platform, status and console, then its console port and its links as an adjacency
 * list (each link once, on the line of the node listed first), and its free ports (not in the prompt).
 * Every token here is paid on every LLM call: a 100-node lab stays under 8 tokens per node and
 * link (o200k); above `topology_inline_max` nodes the prompt carries renderTopologySummary.
 */
import { summarizePorts } from './ports.js';
import type { Topology, TopologyLink, TopologyLinkEnd, TopologyNode } from './types.js';
import { count } from '../core/plural.js';

/** What most nodes share, stated once in the legend instead of on every line. */
interface Defaults {
  kind: string | undefined;
  status: string | undefined;
  /** `telnet console on 127.0.0.1`: the console type and host of most nodes with a console */
  console: string | undefined;
  compute: string | undefined;
}

function hasConsole(n: TopologyNode): boolean {
  return n.console !== null && !!n.console_type && n.console_type !== 'none';
}

/** `qemu/FRR`, `vpcs`, `qemu/FRR{device_type:frr}`: the node type, its template when that says more, its tags. */
function kindOf(n: TopologyNode): string {
  const kind =
    n.template_name && n.template_name.toLowerCase() !== n.node_type.replace(/_/g, ' ') ? `${n.node_type}/${n.template_name}` : n.node_type;
  return n.tags.length ? `${kind}{${n.tags.join(',')}}` : kind;
}

/** A name as one word of its line: quoted (JSON, so a newline cannot start a line of its own) when it has spaces or control characters. */
const word = (name: string) => (/[\s\p{Cc}"]/u.test(name) || name === '' ? JSON.stringify(name) : name);

const consoleOf = (n: TopologyNode) => (hasConsole(n) ? `${n.console_type} console on ${n.console_host ?? '?'}` : undefined);

/** The most frequent value (the first seen on a tie), undefined when none. */
function mostCommon(values: (string | undefined)[]): string | undefined {
  const counts = new Map<string, number>();
  let best: string | undefined;
  for (const v of values) {
    if (v === undefined) continue;
    const c = (counts.get(v) ?? 0) + 1;
    counts.set(v, c);
    if (best === undefined || c > counts.get(best)!) best = v;
  }
  return best;
}

function defaultsOf(nodes: TopologyNode[]): Defaults {
  return {
    kind: mostCommon(nodes.map(kindOf)),
    status: mostCommon(nodes.map((n) => n.status)),
    console: mostCommon(nodes.map(consoleOf)),
    compute: mostCommon(nodes.map((n) => n.compute_id)),
  };
}

function filterText(filters: TopologyLink['filters']): string[] {
  return Object.entries(filters).map(([k, v]) => {
    const values = v.map((x) => (typeof x === 'string' ? x.replace(/\n/g, ' | ') : String(x)));
    return `${k}=${values.join(',')}`;
  });
}

/** `e0-R2:e1`, with `[delay=50,5;suspended]` when the link has filters or flags. */
function linkText(l: TopologyLink, from: number): string {
  const here = l.ends[from]!;
  const peers = l.ends
    .filter((_, i) => i !== from)
    .map((e) => `${word(e.node_name)}:${word(e.port_name)}`)
    .join(',');
  const marks = [...filterText(l.filters), l.suspend ? 'suspended' : '', l.capturing ? 'capturing' : ''].filter(Boolean);
  return `${word(here.port_name)}-${peers}${marks.length ? `[${marks.join(';')}]` : ''}`;
}

/** Each link under the end whose node comes first in the node list (a link to no listed node: under its first end). */
function adjacency(t: Topology): Map<string, string[]> {
  const order = new Map(t.nodes.map((n, i) => [n.node_id, i]));
  const rank = (e: TopologyLinkEnd) => order.get(e.node_id) ?? Infinity;
  const byNode = new Map<string, string[]>();
  for (const l of t.links) {
    if (!l.ends.length) continue;
    let from = 0;
    l.ends.forEach((e, i) => {
      if (rank(e) < rank(l.ends[from]!)) from = i;
    });
    const end = l.ends[from]!;
    // a link whose ends name no listed node (a read mid-change) says whose port it starts at
    const text = order.has(end.node_id) ? linkText(l, from) : `${word(end.node_name)}:${linkText(l, from)}`;
    const list = byNode.get(end.node_id) ?? [];
    list.push(text);
    byNode.set(end.node_id, list);
  }
  return byNode;
}

function nodeLine(n: TopologyNode, def: Defaults, links: string[], freePorts: boolean): string {
  const parts = [word(n.name)];
  const kind = kindOf(n);
  if (kind !== def.kind) parts.push(`(${kind})`);
  if (n.status !== def.status) parts.push(n.status);
  const con = consoleOf(n);
  if (con !== undefined) parts.push(con === def.console ? String(n.console) : `${n.console_type} ${n.console_host ?? '?'}:${n.console}`);
  if (n.compute_id && n.compute_id !== def.compute) parts.push(`@${n.compute_id}`);
  const free = freePorts ? n.ports.filter((p) => p.link_id === null) : [];
  return [...parts, ...links, ...(free.length ? [`free ${summarizePorts(free)}`] : [])].join(' ');
}

function legend(def: Defaults, freePorts: boolean): string {
  const fields = `name (platform) status console-port${def.compute ? ' @compute' : ''}`;
  const tail = freePorts ? ', then free ports' : '; free ports: gns3_topology_reader';
  const shared = [def.kind ? `(${def.kind})` : '', def.status ?? '', def.console ?? '', def.compute ? `@${def.compute}` : '']
    .filter(Boolean)
    .join(', ');
  return `Nodes: ${fields}, then links port-peer:port (each once)${tail}. Unless shown a node is ${shared}`;
}

/** `selection` (the reader's node filter) says which part of the lab the lines are: `R[1-4]: 4 of 40 nodes`. */
function header(t: Topology, selection?: string): string[] {
  const nodes = selection ?? count(t.nodes.length, 'node');
  const lines = [`Project ${t.project_name}: ${nodes}, ${count(t.links.length, 'link')}`];
  // Several computes: where nodes run, and the names create_gns3_node's `compute` takes
  if (t.computes && t.computes.length > 1)
    lines.push(
      `Computes (id "name" host): ${t.computes.map((c) => `${c.compute_id} "${c.name}" ${c.host}${c.connected ? '' : ' disconnected'}`).join('; ')}`,
    );
  return lines;
}

/**
 * `freePorts` (the reader's text, MCP's resource) ends each line with the node's free ports; the
 * prompt leaves them out (about 5 tokens a node) and points at gns3_topology_reader.
 */
export function renderTopologyText(t: Topology, { freePorts = true, selection }: { freePorts?: boolean; selection?: string } = {}): string {
  const lines = header(t, selection);
  const byNode = adjacency(t);
  if (t.nodes.length) {
    const def = defaultsOf(t.nodes);
    lines.push(legend(def, freePorts));
    for (const n of t.nodes) lines.push(nodeLine(n, def, byNode.get(n.node_id) ?? [], freePorts));
  }
  const known = new Set(t.nodes.map((n) => n.node_id));
  const orphans = [...byNode].filter(([id]) => !known.has(id)).flatMap(([, ls]) => ls);
  if (orphans.length) lines.push(`Other links: ${orphans.join(' ')}`);
  return lines.join('\n');
}

/** `qemu/FRR 300, vpcs 100`: how many nodes have each value, the most frequent first. */
function tally(values: string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([v, c]) => `${v} ${c}`)
    .join(', ');
}

/** At most this many name groups in the summary (a lab of unnumbered names would otherwise list them all). */
const MAX_NAME_GROUPS = 40;

/**
 * `R[1-300], PC[1-100], core`: the node names as the reader's globs — numbered names with a
 * common prefix collapse to ranges — so the model can ask for exactly the part it needs.
 */
export function nameRanges(names: readonly string[]): string {
  const groups: { prefix: string; nums: number[] }[] = [];
  const byPrefix = new Map<string, number[]>();
  const words: string[] = [];
  for (const name of names) {
    const m = /^(.*?)(\d+)$/.exec(name);
    // a leading zero (R01) is kept as written: a range would not name it back exactly
    if (!m || (m[2]!.length > 1 && m[2]!.startsWith('0')) || /[*?[\]\s,]/.test(m[1]!)) {
      words.push(word(name));
      continue;
    }
    let nums = byPrefix.get(m[1]!);
    if (!nums) {
      nums = [];
      byPrefix.set(m[1]!, nums);
      groups.push({ prefix: m[1]!, nums });
    }
    nums.push(Number(m[2]));
  }
  const parts: string[] = [];
  for (const { prefix, nums } of groups) {
    const sorted = [...new Set(nums)].sort((a, b) => a - b);
    for (let i = 0; i < sorted.length;) {
      let j = i;
      while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
      parts.push(j > i ? `${prefix}[${sorted[i]}-${sorted[j]}]` : `${prefix}${sorted[i]}`);
      i = j + 1;
    }
  }
  parts.push(...words);
  const shown = parts.slice(0, MAX_NAME_GROUPS);
  return shown.join(', ') + (parts.length > shown.length ? ` and ${parts.length - shown.length} more` : '');
}

/** The prompt's topology for a lab too large to list: counts per platform and status, and where the details are. */
export function renderTopologySummary(t: Topology): string {
  const lines = header(t);
  lines.push(
    `Too many nodes to list here: read them with gns3_topology_reader — nodes ["R1","R[1-4]","PC*"] gives just those nodes and their links, format text is compact.`,
  );
  if (t.nodes.length) {
    lines.push(`Platforms: ${tally(t.nodes.map(kindOf))}`);
    lines.push(`Status: ${tally(t.nodes.map((n) => n.status))}`);
    lines.push(`Names: ${nameRanges(t.nodes.map((n) => n.name))}`);
  }
  const suspended = t.links.filter((l) => l.suspend).length;
  const filtered = t.links.filter((l) => Object.keys(l.filters).length > 0).length;
  if (suspended || filtered) lines.push(`Links: ${suspended} suspended, ${filtered} with packet filters`);
  return lines.join('\n');
}

/**
 * The topology the system prompt carries: listed whole up to `inlineMax` nodes, a summary above.
 * `freePorts`: MCP's topology resource (read once, not paid on every call) lists them too.
 */
export function renderPromptTopology(t: Topology, inlineMax: number, { freePorts = false }: { freePorts?: boolean } = {}): string {
  return t.nodes.length > inlineMax ? renderTopologySummary(t) : renderTopologyText(t, { freePorts });
}

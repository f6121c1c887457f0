/**
 * The topology as compact text for the system prompt's {{topology_info}}:
 * one line per node and per link, free ports summarized. Readable by people,
 * a fraction of the tokens of the JSON.
 */
import { summarizePorts } from './ports.js';
import type { Topology, TopologyLink, TopologyNode } from './types.js';
import { count } from '../core/plural.js';

type ConsoleDefault = { host: string | null; type: string | null };

function hasConsole(n: TopologyNode): boolean {
  return n.console !== null && !!n.console_type && n.console_type !== 'none';
}

/** The most common console host/type, stated once instead of on every line. */
function consoleDefault(nodes: TopologyNode[]): ConsoleDefault {
  const counts = new Map<string, number>();
  for (const n of nodes)
    if (hasConsole(n))
      counts.set(`${n.console_type}\u0000${n.console_host}`, (counts.get(`${n.console_type}\u0000${n.console_host}`) ?? 0) + 1);
  let best: string | undefined;
  for (const [k, c] of counts) if (!best || c > counts.get(best)!) best = k;
  if (!best) return { host: null, type: null };
  const [type, host] = best.split('\u0000');
  return { type: type ?? null, host: host ?? null };
}

function nodeLine(n: TopologyNode, def: ConsoleDefault): string {
  const kind =
    n.template_name && n.template_name.toLowerCase() !== n.node_type.replace(/_/g, ' ') ? `${n.node_type}/${n.template_name}` : n.node_type;
  const tags = n.tags.length ? ` {${n.tags.join(',')}}` : '';
  let consoleText = '';
  if (hasConsole(n)) {
    consoleText =
      n.console_type === def.type && n.console_host === def.host
        ? ` ${n.console}`
        : ` ${n.console_type} ${n.console_host ?? '?'}:${n.console}`;
  }
  return `- ${n.name} (${kind}) ${n.status}${consoleText}${tags}${n.compute_id ? ` on ${n.compute_id}` : ''}`;
}

function filterText(filters: TopologyLink['filters']): string {
  const parts = Object.entries(filters).map(([k, v]) => {
    const values = v.map((x) => (typeof x === 'string' ? x.replace(/\n/g, ' | ') : String(x)));
    return `${k}=${values.join(',')}`;
  });
  return parts.length ? ` [${parts.join('; ')}]` : '';
}

function linkLine(l: TopologyLink): string {
  const ends = l.ends.map((e) => `${e.node_name}:${e.port_name}`).join(' <-> ');
  const flags = [l.suspend ? 'suspended' : '', l.capturing ? 'capturing' : ''].filter(Boolean);
  return `- ${ends}${filterText(l.filters)}${flags.length ? ` (${flags.join(', ')})` : ''}`;
}

export function renderTopologyText(t: Topology): string {
  const lines: string[] = [`Project ${t.project_name}: ${count(t.nodes.length, 'node')}, ${count(t.links.length, 'link')}`];
  // Several computes: where nodes run, and the names create_gns3_node's `compute` takes
  if (t.computes && t.computes.length > 1)
    lines.push(
      `Computes (id "name" host): ${t.computes.map((c) => `${c.compute_id} "${c.name}" ${c.host}${c.connected ? '' : ' disconnected'}`).join('; ')}`,
    );
  if (t.nodes.length) {
    const def = consoleDefault(t.nodes);
    lines.push(
      def.type
        ? `Nodes (name (type) status console-port; consoles are ${def.type} on ${def.host} unless shown):`
        : 'Nodes (name (type) status):',
    );
    for (const n of t.nodes) lines.push(nodeLine(n, def));
  }
  if (t.links.length) {
    lines.push('Links:');
    for (const l of t.links) lines.push(linkLine(l));
  }
  const free = t.nodes
    .map((n) => ({ n, free: n.ports.filter((p) => p.link_id === null) }))
    .filter((x) => x.free.length > 0)
    .map((x) => `${x.n.name} ${summarizePorts(x.free)}`);
  if (free.length) lines.push(`Free ports: ${free.join('; ')}`);
  return lines.join('\n');
}

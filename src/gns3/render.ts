/**
 * The topology as compact text for the system prompt's {{topology_info}}:
 * one line per node and per link, free ports summarised. Readable by people,
 * a fraction of the tokens of the JSON.
 */
import { summarisePorts } from './ports.js';
import type { Topology, TopologyLink, TopologyNode } from './types.js';

function nodeLine(n: TopologyNode): string {
  const kind = n.template_name && n.template_name.toLowerCase() !== n.node_type.replace(/_/g, ' ') ? `${n.node_type}/${n.template_name}` : n.node_type;
  const tags = n.tags.length ? ` {${n.tags.join(',')}}` : '';
  const consoleText =
    n.console !== null && n.console_type && n.console_type !== 'none' ? ` ${n.console_type} ${n.console_host ?? '?'}:${n.console}` : '';
  return `- ${n.name} (${kind}) ${n.status}${consoleText}${tags}`;
}

function filterText(filters: TopologyLink['filters']): string {
  const parts = Object.entries(filters).map(([k, v]) => {
    const values = (v as unknown[]).map((x) => (typeof x === 'string' ? x.replace(/\n/g, ' | ') : String(x)));
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
  const lines: string[] = [`Project ${t.project_name}: ${t.nodes.length} nodes, ${t.links.length} links`];
  if (t.nodes.length) {
    lines.push('Nodes (name (type) status console):');
    for (const n of t.nodes) lines.push(nodeLine(n));
  }
  if (t.links.length) {
    lines.push('Links:');
    for (const l of t.links) lines.push(linkLine(l));
  }
  const free = t.nodes
    .map((n) => ({ n, free: n.ports.filter((p) => p.link_id === null) }))
    .filter((x) => x.free.length > 0)
    .map((x) => `${x.n.name} ${summarisePorts(x.free)}`);
  if (free.length) lines.push(`Free ports: ${free.join('; ')}`);
  return lines.join('\n');
}

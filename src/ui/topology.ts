/** `/topology`: the project's nodes and links as markdown tables (rendered by the markdown view). */
import type { Topology } from '../gns3/types.js';
import { count } from '../core/plural.js';

const cell = (s: string) => s.replace(/\|/g, '\\|');

export function topologyMarkdown(t: Topology): string {
  const nodes = [...t.nodes].sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true }));
  const out: string[] = [];
  out.push(`${count(nodes.length, 'node')}, ${count(t.links.length, 'link')}`, '');
  if (nodes.length) {
    out.push('| Node | Type | Status | Console | Free ports |', '|---|---|---|---|---|');
    for (const n of nodes) {
      const console = n.console === null ? '–' : `${n.console_type ?? 'telnet'} ${n.console_host ?? ''}:${n.console}`;
      const free = n.ports.filter((p) => p.link_id === null).map((p) => p.short_name);
      const freeText = free.length > 4 ? `${free.slice(0, 4).join(' ')} +${free.length - 4}` : free.join(' ') || '–';
      out.push(`| ${cell(n.name)} | ${cell(n.template_name ?? n.node_type)} | ${cell(n.status)} | ${cell(console)} | ${cell(freeText)} |`);
    }
  }
  if (t.links.length) {
    out.push('', '| Link | Filters | State |', '|---|---|---|');
    for (const l of t.links) {
      const ends = l.ends.map((e) => `${e.node_name} ${e.port_name}`).join(' ↔ ');
      const filters = Object.entries(l.filters)
        .map(([k, v]) => `${k}=${v.join('/')}`)
        .join(' ');
      const state = [l.suspend ? 'suspended' : 'up', l.capturing ? 'capturing' : ''].filter(Boolean).join(', ');
      out.push(`| ${cell(ends)} | ${cell(filters || '–')} | ${state} |`);
    }
  }
  return out.join('\n');
}

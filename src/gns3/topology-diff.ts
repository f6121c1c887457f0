/**
 * What changed in a lab between two looks at it, in the words a person (and the model)
 * reads: "R3 stopped", "link R1:e0–R2:e0 deleted", "node PC5 added". A SeenTopology is
 * the small form of a topology that is enough for that, and what a session stores as the
 * topology it last saw (src/sessions/seen-topology.ts), so drift can be told across
 * processes.
 */
import type { Topology } from './types.js';

export interface SeenNode {
  id: string;
  name: string;
  status: string;
}

export interface SeenLink {
  id: string;
  /** "R1:e0", one per end */
  ends: string[];
  suspend: boolean;
  /** the filters as one line ("" when none) */
  filters: string;
}

export interface SeenTopology {
  project_id: string;
  nodes: SeenNode[];
  links: SeenLink[];
}

export function filtersLine(filters: Record<string, unknown[]>): string {
  return Object.entries(filters)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v.map((x) => String(x).replace(/\n/g, ' | ')).join(',')}`)
    .join(' ');
}

export function seenOf(t: Topology): SeenTopology {
  return {
    project_id: t.project_id,
    nodes: t.nodes.map((n) => ({ id: n.node_id, name: n.name, status: n.status })),
    links: t.links.map((l) => ({
      id: l.link_id,
      ends: l.ends.map((e) => `${e.node_name}:${e.port_name}`),
      suspend: l.suspend,
      filters: filtersLine(l.filters),
    })),
  };
}

/** A stored SeenTopology read back (a row written by another release may not be one): undefined when it is not. */
export function seenTopologyOf(v: unknown): SeenTopology | undefined {
  const t = v as Partial<SeenTopology> | null | undefined;
  return t && typeof t.project_id === 'string' && Array.isArray(t.nodes) && Array.isArray(t.links) ? (t as SeenTopology) : undefined;
}

const linkName = (l: SeenLink) => `link ${l.ends.join('–')}`;

/** The changes from `before` to `after`: nodes first (removed, renamed, status, added), then links. */
export function topologyChanges(before: SeenTopology, after: SeenTopology): string[] {
  const out: string[] = [];
  const oldNodes = new Map(before.nodes.map((n) => [n.id, n]));
  const newNodes = new Map(after.nodes.map((n) => [n.id, n]));
  for (const n of before.nodes) if (!newNodes.has(n.id)) out.push(`node ${n.name} deleted`);
  for (const n of after.nodes) {
    const o = oldNodes.get(n.id);
    if (!o) continue;
    if (o.name !== n.name) out.push(`${o.name} renamed to ${n.name}`);
    if (o.status !== n.status) out.push(`${n.name} ${n.status}`);
  }
  for (const n of after.nodes) if (!oldNodes.has(n.id)) out.push(`node ${n.name} added${n.status === 'started' ? ' (started)' : ''}`);

  const oldLinks = new Map(before.links.map((l) => [l.id, l]));
  const newLinks = new Map(after.links.map((l) => [l.id, l]));
  for (const l of before.links) if (!newLinks.has(l.id)) out.push(`${linkName(l)} deleted`);
  for (const l of after.links) {
    const o = oldLinks.get(l.id);
    if (!o) continue;
    if (o.suspend !== l.suspend) out.push(`${linkName(l)} ${l.suspend ? 'suspended' : 'resumed'}`);
    if (o.filters !== l.filters) out.push(l.filters ? `${linkName(l)} filters ${l.filters}` : `${linkName(l)} filters cleared`);
  }
  for (const l of after.links) if (!oldLinks.has(l.id)) out.push(`${linkName(l)} added`);
  return out;
}

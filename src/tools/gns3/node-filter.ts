/**
 * The reader's node filter: names and globs (`R*`, `R[1-4]`, matched as a change set's
 * `devices` are — the same expansion) pick the nodes a large lab's model asks about, and
 * the links touching them; the rest of the lab stays out of the result (and the history).
 */
import { expandDevices } from '../changeset/expand.js';
import type { Topology } from '../../gns3/types.js';

export interface NodeSelection {
  /** the picked nodes in the lab's order, and every link with an end on one of them */
  topology: Topology;
  /** `R[1-4]: 4 of 40 nodes`, for the text form's header */
  label: string;
}

export function selectNodes(
  t: Topology,
  patterns: readonly string[],
): { ok: true; selection: NodeSelection } | { ok: false; error: string } {
  const expanded = expandDevices(
    patterns,
    t.nodes.map((n) => n.name),
  );
  if (!expanded.ok) return expanded;
  const names = new Set(expanded.set.devices);
  const nodes = t.nodes.filter((n) => names.has(n.name));
  const ids = new Set(nodes.map((n) => n.node_id));
  const links = t.links.filter((l) => l.ends.some((e) => ids.has(e.node_id)));
  return {
    ok: true,
    selection: { topology: { ...t, nodes, links }, label: `${patterns.join(', ')}: ${nodes.length} of ${t.nodes.length} nodes` },
  };
}

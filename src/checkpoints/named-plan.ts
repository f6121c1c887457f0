/**
 * The topology half of a named lab checkpoint, pure: what is kept of the topology when
 * the lab is saved, and the plan back to it from the topology now — the rewind's plan
 * (./plan.ts `planTopologyBack`: nodes and links added since are deleted, names, status
 * and link filters set back) plus what cannot be brought back by a restore (nodes and
 * links deleted since), which the report names.
 */
import type { Topology, TopologyLink } from '../gns3/types.js';
import type { SavedTopology } from './named-types.js';
import { planTopologyBack, topologyPlanEmpty, type TopologyNow, type TopologyPlan } from './plan.js';

/** The topology as a checkpoint keeps it. */
export function savedTopologyOf(t: Topology): SavedTopology {
  return {
    nodes: t.nodes.map((n) => ({
      node_id: n.node_id,
      name: n.name,
      node_type: n.node_type,
      status: n.status,
      template_name: n.template_name,
      console_type: n.console_type,
      x: n.x,
      y: n.y,
    })),
    links: t.links.map((l) => ({
      link_id: l.link_id,
      ends: l.ends.map((e) => ({ ...e })),
      filters: l.filters,
      suspend: l.suspend,
    })),
  };
}

/** "R1:e0 <-> R2:e1", as the controller's links are named elsewhere. */
export const linkLabelOf = (l: Pick<TopologyLink, 'ends'>): string => l.ends.map((e) => `${e.node_name}:${e.port_name}`).join(' <-> ');

/** The topology now in the shape the plans compare. */
export function topologyNowOf(t: Topology): TopologyNow {
  return {
    nodes: t.nodes.map((n) => ({ node_id: n.node_id, name: n.name, status: n.status })),
    links: t.links.map((l) => ({ link_id: l.link_id, filters: l.filters, suspend: l.suspend, label: linkLabelOf(l) })),
  };
}

export interface LabTopologyPlan extends TopologyPlan {
  /** nodes of the checkpoint deleted since: a restore cannot create them again */
  missing_nodes: { node_id: string; name: string }[];
  /** links of the checkpoint deleted since */
  missing_links: { link_id: string; label: string }[];
}

export function labTopologyPlanEmpty(p: LabTopologyPlan): boolean {
  return topologyPlanEmpty(p);
}

/** The plan from the topology now back to the saved one. */
export function planLabTopology(saved: SavedTopology, now: TopologyNow): LabTopologyPlan {
  const nowNodes = new Set(now.nodes.map((n) => n.node_id));
  const nowLinks = new Set(now.links.map((l) => l.link_id));
  const savedNodes = new Set(saved.nodes.map((n) => n.node_id));
  const savedLinks = new Set(saved.links.map((l) => l.link_id));
  const plan = planTopologyBack(
    {
      nodes: saved.nodes.map((n) => ({ node_id: n.node_id, name: n.name, status: n.status })),
      links: saved.links.map((l) => ({ link_id: l.link_id, filters: l.filters, suspend: l.suspend })),
    },
    {
      nodes: new Set(now.nodes.filter((n) => !savedNodes.has(n.node_id)).map((n) => n.node_id)),
      links: new Set(now.links.filter((l) => !savedLinks.has(l.link_id)).map((l) => l.link_id)),
    },
    now,
  );
  return {
    ...plan,
    missing_nodes: saved.nodes.filter((n) => !nowNodes.has(n.node_id)).map((n) => ({ node_id: n.node_id, name: n.name })),
    missing_links: saved.links.filter((l) => !nowLinks.has(l.link_id)).map((l) => ({ link_id: l.link_id, label: linkLabelOf(l) })),
  };
}

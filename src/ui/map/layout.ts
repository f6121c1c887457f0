/**
 * Where the map puts each node and which way each link runs, in character cells: the
 * layout is dagre's (@dagrejs/dagre), never our own. A lab's links have no direction, so
 * each is laid from the busier end to the quieter one (switches and core routers above
 * their PCs); both orientations are tried and the one that fits the screen better wins.
 */
import dagreModule from '@dagrejs/dagre';
import type { Topology, TopologyLink, TopologyNode } from '../../gns3/types.js';

/** The part of dagre's graph (graphlib's Graph) the map uses. */
interface LayoutGraph {
  setGraph(label: Record<string, unknown>): unknown;
  setDefaultEdgeLabel(fn: () => Record<string, unknown>): unknown;
  setNode(id: string, label: { width: number; height: number }): unknown;
  setEdge(v: string, w: string, label: Record<string, unknown>, name: string): unknown;
  node(id: string): { x: number; y: number; width: number; height: number };
  edge(v: string, w: string, name: string): { points?: { x: number; y: number }[] };
}

// dagre's .d.ts imports its own parts without file extensions, which NodeNext resolution
// cannot follow, so its exports arrive untyped: these are the types they have.
const dagre: { graphlib: { Graph: new (o: { multigraph: boolean }) => LayoutGraph }; layout(g: LayoutGraph): void } = dagreModule;

export interface MapBox {
  node: TopologyNode;
  /** the label as drawn (printable, cut to NAME_MAX) */
  label: string;
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface MapEdge {
  link: TopologyLink;
  /** from → to as laid out (the busier end first) */
  from: MapBox;
  to: MapBox;
  fromPort: string;
  toPort: string;
  /** dagre's bend points between the two boxes, in cells */
  bends: { x: number; y: number }[];
}

export interface MapLayout {
  rankdir: 'TB' | 'LR';
  width: number;
  height: number;
  boxes: MapBox[];
  edges: MapEdge[];
}

export const BOX_HEIGHT = 4;
const NAME_MAX = 16;
/** a blank column left and right of the drawing (the rows need none: a terminal has no frame above) */
const MARGIN = 1;

/** One cell per character: control characters and wide characters become '?', so boxes line up. */
export function cellText(s: string): string {
  return [...s].map((ch) => (/^[\x20-\x7e]$/.test(ch) ? ch : '?')).join('');
}

function boxLabel(n: TopologyNode): string {
  const name = cellText(n.name);
  return name.length > NAME_MAX ? `${name.slice(0, NAME_MAX - 1)}~` : name;
}

function layoutOnce(t: Topology, rankdir: 'TB' | 'LR'): MapLayout {
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph(rankdir === 'TB' ? { rankdir, nodesep: 2, ranksep: 3, edgesep: 1 } : { rankdir, nodesep: 1, ranksep: 8, edgesep: 1 });
  g.setDefaultEdgeLabel(() => ({}));
  const degree = new Map<string, number>();
  for (const l of t.links) for (const e of l.ends) degree.set(e.node_id, (degree.get(e.node_id) ?? 0) + 1);
  const byId = new Map(t.nodes.map((n) => [n.node_id, n]));
  for (const n of t.nodes) {
    const label = boxLabel(n);
    g.setNode(n.node_id, { width: Math.max(label.length, n.status.length) + 4, height: BOX_HEIGHT });
  }
  const links: { link: TopologyLink; from: string; to: string; fromPort: string; toPort: string }[] = [];
  for (const l of t.links) {
    const [a, b] = l.ends;
    if (!a || !b || a.node_id === b.node_id || !byId.has(a.node_id) || !byId.has(b.node_id)) continue;
    const busier = (degree.get(a.node_id) ?? 0) - (degree.get(b.node_id) ?? 0) || a.node_name.localeCompare(b.node_name);
    const [f, s] = busier >= 0 ? [a, b] : [b, a];
    g.setEdge(f.node_id, s.node_id, {}, l.link_id);
    links.push({ link: l, from: f.node_id, to: s.node_id, fromPort: cellText(f.port_name), toPort: cellText(s.port_name) });
  }
  dagre.layout(g);
  const boxes = new Map<string, MapBox>();
  for (const n of t.nodes) {
    const d = g.node(n.node_id);
    boxes.set(n.node_id, {
      node: n,
      label: boxLabel(n),
      left: Math.round(d.x - d.width / 2) + MARGIN,
      top: Math.round(d.y - d.height / 2),
      width: d.width,
      height: d.height,
    });
  }
  const edges: MapEdge[] = links.map((l) => {
    const pts = (g.edge(l.from, l.to, l.link.link_id).points ?? []).map((p) => ({
      x: Math.round(p.x) + MARGIN,
      y: Math.round(p.y),
    }));
    return {
      link: l.link,
      from: boxes.get(l.from)!,
      to: boxes.get(l.to)!,
      fromPort: l.fromPort,
      toPort: l.toPort,
      bends: pts.slice(1, -1),
    };
  });
  const all = [...boxes.values()];
  const width = Math.max(0, ...all.map((b) => b.left + b.width), ...edges.flatMap((e) => e.bends.map((p) => p.x + 1))) + MARGIN;
  const height = Math.max(0, ...all.map((b) => b.top + b.height), ...edges.flatMap((e) => e.bends.map((p) => p.y + 1)));
  return { rankdir, width, height, boxes: all, edges };
}

/** How far a layout spills out of the screen (cells outside it), then its area: smaller is better. */
function misfit(l: MapLayout, fit: { width: number; height: number }): [number, number] {
  const over = Math.max(0, l.width - fit.width) * Math.min(l.height, fit.height) + Math.max(0, l.height - fit.height) * l.width;
  return [over, l.width * l.height];
}

/** The lab laid out to fit `fit` (columns, rows; Infinity rows for printed output) as well as it can. */
export function layoutTopology(t: Topology, fit: { width: number; height: number }): MapLayout {
  const tb = layoutOnce(t, 'TB');
  if (tb.width <= fit.width && tb.height <= fit.height) return tb;
  const lr = layoutOnce(t, 'LR');
  const [a, b] = [misfit(tb, fit), misfit(lr, fit)];
  return a[0] < b[0] || (a[0] === b[0] && a[1] <= b[1]) ? tb : lr;
}

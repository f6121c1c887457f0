/**
 * The lab as a picture in character cells: each node a box with its name and its status
 * (coloured; the word is there without colour too), each link a line between two boxes
 * with its ports written at both ends, a suspended link dotted, and a link with filters,
 * a suspension or a capture marked ~1, ~2… and explained in the legend under the map.
 * The TUI's /map shows a window of it and pans; `gns3-copilot map` prints it whole.
 */
import type { Topology } from '../../gns3/types.js';
import { linkNote } from './marks.js';
import { createStyle } from '../style.js';
import { Canvas, painter, type CellStyle } from './canvas.js';
import { cellText, layoutTopology, type MapBox, type MapEdge } from './layout.js';

export interface MapPicture {
  /** "Project lab: 12 nodes, 11 links" */
  title: string;
  width: number;
  height: number;
  /** the window (x, y, w, h) of the map as styled lines */
  view(x: number, y: number, w: number, h: number): string[];
  /** one line per marked link: `~1 R1:e0–R2:e0 suspended` */
  legend: string[];
}

type Pt = { x: number; y: number };

const STATUS_STYLE: Record<string, CellStyle> = { started: 'started', stopped: 'stopped', suspended: 'suspended' };

function drawBox(c: Canvas, b: MapBox): void {
  const st = STATUS_STYLE[b.node.status] ?? 'other';
  const inner = b.width - 2;
  c.text(b.left, b.top, `┌${'─'.repeat(inner)}┐`, st);
  c.text(b.left, b.top + 1, '│', st);
  c.text(b.left + 1, b.top + 1, ` ${b.label}`.padEnd(inner), 'name');
  c.text(b.left + b.width - 1, b.top + 1, '│', st);
  c.text(b.left, b.top + 2, `│${` ${cellText(b.node.status)}`.padEnd(inner)}│`, st);
  c.text(b.left, b.top + 3, `└${'─'.repeat(inner)}┘`, st);
}

/** The cell just outside box `b` on the side facing `toward`, and the border cell it touches. */
function exitOf(b: MapBox, toward: Pt): { out: Pt; border: Pt; side: 'top' | 'bottom' | 'left' | 'right' } {
  const right = b.left + b.width - 1;
  const bottom = b.top + b.height - 1;
  const cx = Math.min(right - 1, Math.max(b.left + 1, toward.x));
  const cy = Math.min(bottom - 1, Math.max(b.top + 1, toward.y));
  if (toward.y > bottom) return { out: { x: cx, y: bottom + 1 }, border: { x: cx, y: bottom }, side: 'bottom' };
  if (toward.y < b.top) return { out: { x: cx, y: b.top - 1 }, border: { x: cx, y: b.top }, side: 'top' };
  if (toward.x > right) return { out: { x: right + 1, y: cy }, border: { x: right, y: cy }, side: 'right' };
  return { out: { x: b.left - 1, y: cy }, border: { x: b.left, y: cy }, side: 'left' };
}

const TEE: Record<string, string> = { bottom: '┬', top: '┴', right: '├', left: '┤' };
const center = (b: MapBox): Pt => ({ x: b.left + Math.floor(b.width / 2), y: b.top + Math.floor(b.height / 2) });

/** The cells from a to b: straight, or a Z through the middle of the gap (vertical first for top-down maps). */
function route(a: Pt, b: Pt, vertical: boolean): Pt[] {
  const cells: Pt[] = [a];
  const go = (to: Pt) => {
    let p = cells[cells.length - 1]!;
    while (p.x !== to.x || p.y !== to.y) {
      p =
        p.x !== to.x && (p.y === to.y || !vertical)
          ? { x: p.x + Math.sign(to.x - p.x), y: p.y }
          : { x: p.x, y: p.y + Math.sign(to.y - p.y) };
      cells.push(p);
    }
  };
  if (a.x === b.x || a.y === b.y) go(b);
  else if (vertical) {
    const midY = Math.round((a.y + b.y) / 2);
    go({ x: a.x, y: midY });
    go({ x: b.x, y: midY });
    go(b);
  } else {
    const midX = Math.round((a.x + b.x) / 2);
    go({ x: midX, y: a.y });
    go({ x: midX, y: b.y });
    go(b);
  }
  return cells;
}

/** Writes a port name beside a line end, on free cells only (never over a box or a line). */
function portLabel(c: Canvas, at: Pt, side: string, port: string): void {
  const spots: Pt[] =
    side === 'bottom' || side === 'top'
      ? [
          { x: at.x + 1, y: at.y },
          { x: at.x - port.length, y: at.y },
        ]
      : [
          { x: side === 'right' ? at.x : at.x - port.length + 1, y: at.y - 1 },
          { x: side === 'right' ? at.x : at.x - port.length + 1, y: at.y + 1 },
        ];
  const fits = (p: Pt) => [...port].every((_, k) => c.isFree(p.x + k, p.y));
  const spot = spots.find(fits);
  if (spot) c.text(spot.x, spot.y, port, 'port');
}

/** Draws a link's line (and marker); returns what writes its port names, once every line is drawn (a name never hides a line). */
function drawEdge(c: Canvas, e: MapEdge, vertical: boolean, marker: string | undefined): () => void {
  const dotted = e.link.suspend;
  const first = e.bends[0] ?? center(e.to);
  const last = e.bends[e.bends.length - 1] ?? center(e.from);
  const a = exitOf(e.from, first);
  const b = exitOf(e.to, last);
  const waypoints = [a.out, ...e.bends, b.out];
  const cells: Pt[] = [a.out];
  for (let i = 1; i < waypoints.length; i++) cells.push(...route(cells[cells.length - 1]!, waypoints[i]!, vertical).slice(1));
  c.stub(a.out.x, a.out.y, a.border.x, a.border.y, dotted);
  c.stub(b.out.x, b.out.y, b.border.x, b.border.y, dotted);
  for (let i = 1; i < cells.length; i++) c.step(cells[i - 1]!.x, cells[i - 1]!.y, cells[i]!.x, cells[i]!.y, dotted);
  if (marker) {
    const mid = cells[Math.floor(cells.length / 2)]!;
    c.text(mid.x, mid.y, marker, 'marker');
  }
  return () => {
    portLabel(c, a.out, a.side, e.fromPort);
    portLabel(c, b.out, b.side, e.toPort);
  };
}

export function renderMap(t: Topology, o: { color: boolean; fit: { width: number; height: number } }): MapPicture {
  const l = layoutTopology(t, o.fit);
  const c = new Canvas(l.width, l.height);
  for (const b of l.boxes) c.block(b.left, b.top, b.width, b.height);
  const legend: string[] = [];
  const labels: (() => void)[] = [];
  for (const e of l.edges) {
    const note = linkNote(e.link);
    const marker = note ? `~${legend.length + 1}` : undefined;
    if (marker)
      legend.push(
        cellText(`${marker} ${e.link.ends.map((x) => `${x.node_name}:${x.port_name}`).join(' - ')} ${note!}`).replace(' - ', '–'),
      );
    labels.push(drawEdge(c, e, l.rankdir === 'TB', marker));
  }
  for (const label of labels) label();
  for (const b of l.boxes) drawBox(c, b);
  // the border tees where lines meet boxes are drawn after the boxes
  for (const e of l.edges) {
    const first = e.bends[0] ?? center(e.to);
    const last = e.bends[e.bends.length - 1] ?? center(e.from);
    for (const [box, toward] of [
      [e.from, first],
      [e.to, last],
    ] as const) {
      const x = exitOf(box, toward);
      c.text(x.border.x, x.border.y, TEE[x.side]!, STATUS_STYLE[box.node.status] ?? 'other');
    }
  }
  const paint = painter(createStyle(o.color));
  const nodes = `${t.nodes.length} node${t.nodes.length === 1 ? '' : 's'}`;
  const links = `${t.links.length} link${t.links.length === 1 ? '' : 's'}`;
  return {
    title: `Project ${cellText(t.project_name)}: ${nodes}, ${links}`,
    width: l.width,
    height: l.height,
    view: (x, y, w, h) => c.view(x, y, w, h, paint),
    legend,
  };
}

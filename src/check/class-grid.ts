/**
 * The live class grid of `check FILE --projects GLOB --watch`: students × checks, one ✓/✗/!
 * per cell, the score and the first failing check per row, the totals, and a legend naming
 * each numbered column. Pure: a frame is a string (the command redraws it in place on a
 * colour terminal); without colour or a terminal only the rows that changed are printed,
 * as lines (changedRows).
 */
import { count } from '../core/plural.js';
import { sanitizeLine } from '../security/sanitize.js';
import type { CheckStatus } from './plan.js';
import { MARK } from './report.js';
import { totalsLine } from './class-report.js';
import type { ClassReport, ClassRow } from './class-run.js';

/** The few colours the grid uses (the check layer draws no UI: plain ANSI, none at all without colour). */
interface Style {
  green(s: string): string;
  red(s: string): string;
  yellow(s: string): string;
  bold(s: string): string;
  dim(s: string): string;
}
const sgr = (open: number, close: number) => (s: string) => (s ? `\u001b[${open}m${s}\u001b[${close}m` : s);
const id = (s: string) => s;
function createStyle(color: boolean): Style {
  if (!color) return { green: id, red: id, yellow: id, bold: id, dim: id };
  return { green: sgr(32, 39), red: sgr(31, 39), yellow: sgr(33, 39), bold: sgr(1, 22), dim: sgr(2, 22) };
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

interface Layout {
  nameWidth: number;
  /** the width of each check's column (its number's width) */
  cols: number[];
}

function layout(r: ClassReport): Layout {
  const n = Math.max(0, ...r.projects.map((p) => p.checks.length));
  return {
    nameWidth: Math.min(24, Math.max(7, ...r.projects.map((p) => sanitizeLine(p.project).length))),
    cols: Array.from({ length: n }, (_, i) => String(i + 1).length),
  };
}

function paint(s: CheckStatus, st: Style): string {
  const m = MARK[s];
  return s === 'pass' ? st.green(m) : s === 'fail' ? st.red(m) : st.yellow(m);
}

function row(p: ClassRow, l: Layout, st: Style, tail: number): string {
  const cells = l.cols.map((w, i) => {
    const c = p.checks[i];
    return (c ? paint(c.status, st) : ' ') + ' '.repeat(w - 1);
  });
  const score = `${p.score}/${p.max_score}`.padStart(7);
  const first = p.first_failing !== undefined ? `  ${clip(sanitizeLine(p.first_failing), tail)}` : '';
  return `${clip(sanitizeLine(p.project), l.nameWidth).padEnd(l.nameWidth)}  ${cells.join(' ')}  ${score}${first}`;
}

export interface FrameOptions {
  color: boolean;
  /** the time of the run, HH:MM:SS */
  stamp: string;
  /** seconds between runs */
  interval: number;
  /** terminal columns (the first failing check is cut to fit) */
  columns?: number;
}

/** One whole frame of the grid. */
export function gridFrame(r: ClassReport, o: FrameOptions): string {
  const st = createStyle(o.color);
  const l = layout(r);
  const cols = o.columns ?? 120;
  const used = l.nameWidth + 2 + l.cols.reduce((s, w) => s + w + 1, 0) + 8;
  const tail = Math.max(10, cols - used - 3);
  const head = `${'project'.padEnd(l.nameWidth)}  ${l.cols.map((_, i) => String(i + 1)).join(' ')}  ${'score'.padStart(7)}`;
  const names = r.projects[0]?.checks.map((c) => sanitizeLine(c.name)) ?? [];
  const legend = names.map((n, i) => `${String(i + 1).padStart(String(names.length).length)} ${clip(n, Math.max(10, cols - 4))}`);
  return [
    st.bold(
      `class grid · ${count(r.totals.projects, 'project')} × ${count(names.length, 'check')} · ${o.stamp} · every ${o.interval} s (Ctrl-C to stop)`,
    ),
    st.dim(head),
    ...r.projects.map((p) => row(p, l, st, tail)),
    totalsLine(r.totals),
    ...legend.map((x) => st.dim(x)),
  ].join('\n');
}

/** The plain rows of the projects whose cells or score changed since `prev` (a new project is a change). */
export function changedRows(prev: ClassReport, next: ClassReport, columns = 120): string[] {
  const st = createStyle(false);
  const l = layout(next);
  const tail = Math.max(10, columns - l.nameWidth - l.cols.reduce((s, w) => s + w + 1, 0) - 20);
  const before = new Map(prev.projects.map((p) => [p.project, p]));
  const key = (p: ClassRow) => `${p.score}|${p.checks.map((c) => c.status).join(',')}`;
  return next.projects
    .filter((p) => {
      const b = before.get(p.project);
      return !b || key(b) !== key(p);
    })
    .map((p) => row(p, l, st, tail));
}

/** The plain grid rows, for the first print of a non-terminal --watch. */
export function plainRows(r: ClassReport, columns = 120): string[] {
  return changedRows({ projects: [], totals: r.totals }, r, columns);
}

/**
 * Line diff (Myers' O(ND) algorithm over interned lines, after trimming the
 * common head and tail) and its unified rendering (`---`/`+++`, `@@` hunks
 * with three lines of context), for `diff` and the rewind plan.
 */

export type Edit = { op: ' ' | '-' | '+'; line: string };

/** Past this many differences the middle is shown as removed-then-added instead of searched further (keeps a diff of unrelated texts bounded). */
const MAX_D = 2_000;

export function diffLines(a: string[], b: string[]): Edit[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const out: Edit[] = a.slice(0, head).map((line) => ({ op: ' ', line }));
  const am = a.slice(head, a.length - tail);
  const bm = b.slice(head, b.length - tail);
  out.push(...myers(am, bm));
  out.push(...a.slice(a.length - tail).map((line): Edit => ({ op: ' ', line })));
  return out;
}

function myers(a: string[], b: string[]): Edit[] {
  if (a.length === 0) return b.map((line) => ({ op: '+', line }));
  if (b.length === 0) return a.map((line) => ({ op: '-', line }));
  // Compare numbers, not strings.
  const ids = new Map<string, number>();
  const id = (s: string) => {
    let v = ids.get(s);
    if (v === undefined) ids.set(s, (v = ids.size));
    return v;
  };
  const x = Int32Array.from(a, id);
  const y = Int32Array.from(b, id);
  const n = x.length;
  const m = y.length;
  const max = Math.min(n + m, MAX_D);
  const off = max + 1;
  const v = new Int32Array(2 * max + 3);
  // Only the diagonals round d can read (-d-1 … d+1): the trace stays O(D²), not O((N+M)·D).
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= max && found < 0; d++) {
    trace.push(v.slice(off - d - 1, off + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let px = k === -d || (k !== d && v[off + k - 1]! < v[off + k + 1]!) ? v[off + k + 1]! : v[off + k - 1]! + 1;
      let py = px - k;
      while (px < n && py < m && x[px] === y[py]) {
        px++;
        py++;
      }
      v[off + k] = px;
      if (px >= n && py >= m) {
        found = d;
        break;
      }
    }
  }
  if (found < 0) return [...a.map((line): Edit => ({ op: '-', line })), ...b.map((line): Edit => ({ op: '+', line }))];
  // Walk the trace back from (n, m).
  const edits: Edit[] = [];
  let px = n;
  let py = m;
  for (let d = found; d > 0; d--) {
    const t = trace[d]!;
    const at = (k: number) => t[k + d + 1]!;
    const k = px - py;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (px > prevX && py > prevY) {
      edits.push({ op: ' ', line: a[--px]! });
      py--;
    }
    if (px === prevX) edits.push({ op: '+', line: b[--py]! });
    else edits.push({ op: '-', line: a[--px]! });
  }
  while (px > 0 && py > 0) {
    edits.push({ op: ' ', line: a[--px]! });
    py--;
  }
  return edits.reverse();
}

/** A unified diff of two texts; empty text when they are equal. */
export function unifiedDiff(before: string, after: string, labels: { from: string; to: string }, context = 3): string {
  const a = before === '' ? [] : before.split('\n');
  const b = after === '' ? [] : after.split('\n');
  const edits = diffLines(a, b);
  if (!edits.some((e) => e.op !== ' ')) return '';
  const out = [`--- ${labels.from}`, `+++ ${labels.to}`];
  // Line numbers of each edit in a and b.
  const pos: { ai: number; bi: number }[] = [];
  let ai = 0;
  let bi = 0;
  for (const e of edits) {
    pos.push({ ai, bi });
    if (e.op !== '+') ai++;
    if (e.op !== '-') bi++;
  }
  let i = 0;
  while (i < edits.length) {
    while (i < edits.length && edits[i]!.op === ' ') i++;
    if (i >= edits.length) break;
    const start = Math.max(0, i - context);
    let end = i;
    // Extend the hunk while the next change is within 2×context lines.
    for (;;) {
      while (end < edits.length && edits[end]!.op !== ' ') end++;
      let next = end;
      while (next < edits.length && edits[next]!.op === ' ') next++;
      if (next < edits.length && next - end <= 2 * context) end = next;
      else {
        end = Math.min(edits.length, end + context);
        break;
      }
    }
    const hunk = edits.slice(start, end);
    const aCount = hunk.filter((e) => e.op !== '+').length;
    const bCount = hunk.filter((e) => e.op !== '-').length;
    const p = pos[start]!;
    out.push(`@@ -${aCount ? p.ai + 1 : p.ai},${aCount} +${bCount ? p.bi + 1 : p.bi},${bCount} @@`);
    for (const e of hunk) out.push(`${e.op}${e.line}`);
    i = end;
  }
  return out.join('\n');
}

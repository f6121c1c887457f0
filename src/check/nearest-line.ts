/**
 * The line of some output that comes nearest to a text that is not in it: where a failed
 * `contains` expected its text (`IP/MASK : 10.0.0.9/24` for "IP/MASK : 10.0.0.1/24"), so
 * the evidence shows what is there instead of the output's first line. Nearness is the
 * Dice coefficient of character pairs, whitespace runs and case ignored.
 */

const pairs = (s: string): Map<string, number> => {
  const t = s.replace(/\s+/g, ' ').trim().toLowerCase();
  const m = new Map<string, number>();
  for (let i = 0; i + 1 < t.length; i++) {
    const p = t.slice(i, i + 2);
    m.set(p, (m.get(p) ?? 0) + 1);
  }
  return m;
};

const size = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

/** 0 (nothing in common) .. 1 (the same text, whitespace and case aside). */
export function nearness(a: string, b: string): number {
  const pa = pairs(a);
  const pb = pairs(b);
  const total = size(pa) + size(pb);
  if (total === 0) return 0;
  let common = 0;
  for (const [p, n] of pa) common += Math.min(n, pb.get(p) ?? 0);
  return (2 * common) / total;
}

/** The non-blank line nearest to `text` (the first of equals), trimmed; undefined when no line shares anything with it. */
export function nearestLine(lines: string[], text: string): string | undefined {
  let best: string | undefined;
  let score = 0;
  for (const l of lines) {
    const s = nearness(l, text);
    if (s > score) [best, score] = [l.trim(), s];
  }
  return best;
}

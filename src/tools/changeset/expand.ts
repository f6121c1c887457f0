/**
 * A change set's `devices` against the project's nodes: exact names (matched as the
 * device tools match them) and globs — `*`, `?`, `[abc]` and `[1-12]` (a numeric range
 * when both ends are numbers, so `R[1-12]` is R1…R12 in a lab of twenty). Each pattern's
 * expansion is kept so the approval shows it; the set is in the patterns' order, each
 * glob's matches in natural order (R2 before R10), every device once.
 */
export interface Expansion {
  /** the devices, in set order (device.index is the position + 1) */
  devices: string[];
  /** pattern → the devices it named */
  expansion: Record<string, string[]>;
}

const isGlob = (p: string) => /[*?[]/.test(p);

const natural = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** The glob's regular expression; numeric ranges are matched by `ranges` after it. */
function globRegex(glob: string): { re: RegExp; ranges: [number, number][] } {
  const ranges: [number, number][] = [];
  let src = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') src += '.*';
    else if (c === '?') src += '.';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end < 0) throw new Error(`unclosed "[" in device pattern "${glob}"`);
      const body = glob.slice(i + 1, end);
      const num = /^(\d+)-(\d+)$/.exec(body);
      if (num) {
        ranges.push([Number(num[1]), Number(num[2])]);
        src += '(\\d+)';
      } else src += `[${body.replace(/\\/g, '\\\\').replace(/^!/, '^')}]`;
      i = end;
    } else src += c.replace(/[.+^${}()|\\/]/g, '\\$&');
  }
  return { re: new RegExp(`^${src}$`, 'i'), ranges };
}

function matches(name: string, g: { re: RegExp; ranges: [number, number][] }): boolean {
  const m = g.re.exec(name);
  if (!m) return false;
  // the numeric groups are the last `ranges.length` captures, in order
  const nums = m.slice(m.length - g.ranges.length);
  return g.ranges.every(([lo, hi], k) => {
    const n = Number(nums[k]);
    return n >= Math.min(lo, hi) && n <= Math.max(lo, hi);
  });
}

export function expandDevices(
  patterns: readonly string[],
  nodeNames: readonly string[],
): { ok: true; set: Expansion } | { ok: false; error: string } {
  const devices: string[] = [];
  const expansion: Record<string, string[]> = {};
  const add = (n: string) => {
    if (!devices.includes(n)) devices.push(n);
  };
  for (const p of patterns) {
    let named: string[];
    if (isGlob(p)) {
      let g: ReturnType<typeof globRegex>;
      try {
        g = globRegex(p);
      } catch (err) {
        return { ok: false, error: (err as Error).message };
      }
      named = nodeNames.filter((n) => matches(n, g)).sort(natural.compare);
      if (named.length === 0)
        return { ok: false, error: `device pattern "${p}" matches no node (nodes: ${nodeNames.slice(0, 30).join(', ')})` };
    } else {
      const exact = nodeNames.find((n) => n === p) ?? nodeNames.find((n) => n.toLowerCase() === p.toLowerCase());
      if (exact === undefined)
        return { ok: false, error: `no node named "${p}" in the project (nodes: ${nodeNames.slice(0, 30).join(', ')})` };
      named = [exact];
    }
    expansion[p] = named;
    named.forEach(add);
  }
  return { ok: true, set: { devices, expansion } };
}

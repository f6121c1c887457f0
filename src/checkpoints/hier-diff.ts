/**
 * The hierarchical configuration diff of the Cisco-like family (FRR, IOS,
 * EOS-like): a configuration is a tree of indentation blocks (`interface eth0`
 * owns the lines indented under it), and the commands that take a device from
 * its current configuration back to a checkpoint are found per block:
 *
 * - a line the checkpoint has and the device lost is re-added inside its block;
 * - a line the device gained is negated inside its block (`no …`; negating
 *   `no x` gives `x`; free text such as a description is dropped); a single-valued setting the checkpoint sets again (a
 *   `description`, a `hostname`) is overwritten instead of negated first;
 * - a block the device gained is removed by its header (`no router ospf`); a
 *   physical interface cannot be removed, so its lines are negated instead;
 * - a block the device lost is re-added whole.
 *
 * Safe order: blocks the checkpoint needs come back first (what the lines
 * below may refer to), then the edits inside kept blocks (negations before
 * additions, negations last line first), and gained top-level blocks go last,
 * once nothing refers to them any more. Every edit inside a block is sent
 * inside it: header, lines, `exit`.
 */

export interface ConfigNode {
  line: string;
  children: ConfigNode[];
}

/** A command of a plan and the block depth it is sent at (for display: one space per level). */
export interface PlanLine {
  depth: number;
  text: string;
}

/** Lines that carry no configuration: banners of the dump, comments, block closers, versions. */
const NOISE = [
  /^!/,
  /^#$/,
  /^end$/,
  /^return$/,
  /^exit(-[\w-]+)?$/,
  /^Building configuration/i,
  /^Current configuration/i,
  /^frr (version|defaults)\b/,
  /^version \S+$/,
  /^ntp clock-period\b/,
];

/** First characters of the NOISE lines: most lines are settled by one character test, not ten regexes. */
const NOISE_START = new Set(['!', '#', 'e', 'r', 'B', 'b', 'C', 'c', 'f', 'v', 'n']);

const isNoise = (t: string) => t === '' || (NOISE_START.has(t[0]!) && NOISE.some((re) => re.test(t)));

/** The configuration as a tree of indentation blocks (noise dropped). */
export function parseConfig(text: string): ConfigNode[] {
  const root: ConfigNode[] = [];
  const stack: { indent: number; node: ConfigNode }[] = [];
  for (const raw of text.replace(/\r/g, '').split('\n')) {
    const t = raw.trim();
    if (isNoise(t)) continue;
    const indent = raw.length - raw.trimStart().length;
    while (stack.length > 0 && stack[stack.length - 1]!.indent >= indent) stack.pop();
    const node: ConfigNode = { line: t, children: [] };
    (stack.length > 0 ? stack[stack.length - 1]!.node.children : root).push(node);
    stack.push({ indent, node });
  }
  return root;
}

/**
 * Settings whose value is free text: they are negated by their keyword alone. FRR refuses
 * `no description uplink to r2` (only `no description` removes it); IOS takes both.
 */
const NEGATED_BARE = [/^description(?=\s)/, /^banner\s+\S+(?=\s)/];

/** `x` → `no x`, `no x` → `x` (with the platform's negation word); a free-text setting loses its text. */
export function negate(line: string, no = 'no'): string {
  const t = line.trim();
  const re = new RegExp(`^${no}\\s+`, 'i');
  if (re.test(t)) return t.replace(re, '');
  const bare = NEGATED_BARE.map((k) => k.exec(t)).find((m) => m !== null);
  return `${no} ${bare ? bare[0] : t}`;
}

/** Settings a device holds one value of: setting the checkpoint's value replaces the current one. */
const SINGLE_VALUED = [
  /^description\s/,
  /^hostname\s/,
  /^sysname\s/,
  /^(\S+\s+)?router-id\s/,
  /^ip ospf (cost|hello-interval|dead-interval|network|priority|area)\s/,
  /^bandwidth\s/,
  /^mtu\s/,
  /^banner\s+\S+/,
  /^ip domain[- ]name\s/,
];

/** The setting a single-valued line sets (`description `), or undefined. */
export function settingKey(line: string): string | undefined {
  for (const re of SINGLE_VALUED) {
    const m = re.exec(line);
    if (m) return m[0];
  }
  return undefined;
}

/** Interfaces that exist only because the configuration made them (they can be removed by their header). */
const VIRTUAL_INTERFACE = /^interface\s+(loopback|lo\d|tunnel|vlan|port-channel|bvi|dummy|vrf|\S+\.\d+$)/i;

export interface HierOptions {
  /** the negation word: `no` (Cisco-like), `undo` (Huawei) */
  no?: string;
}

/** The commands that take `current` back to `target` (both as the device prints its configuration). */
export function restorePlan(target: string, current: string, o: HierOptions = {}): PlanLine[] {
  const no = o.no ?? 'no';
  const want = parseConfig(target);
  const have = parseConfig(current);
  const haveBy = index(have);
  const wantBy = index(want);
  const out: PlanLine[] = [];
  // 1. Blocks the device lost come back first.
  for (const w of want) if (w.children.length > 0 && !haveBy.has(w.line)) emitWhole(w, 0, out);
  // 2. Edits at the top level and inside the blocks both have.
  out.push(...blockEdits(want, have, 0, no, { skipTopBlocks: true }));
  // 3. Blocks the device gained go last, the last one first.
  for (const h of [...have].reverse()) if (h.children.length > 0 && !wantBy.has(h.line)) out.push(...removeBlock(h, 0, no));
  return out;
}

/** The plan as the lines to send (block headers, settings and `exit`s, unindented). */
export function planCommands(plan: PlanLine[]): string[] {
  return plan.map((l) => l.text);
}

/** The plan as a person reads it (one space per block level). */
export function planText(plan: PlanLine[]): string[] {
  return plan.map((l) => `${' '.repeat(l.depth)}${l.text}`);
}

function index(nodes: ConfigNode[]): Map<string, ConfigNode> {
  const m = new Map<string, ConfigNode>();
  for (const n of nodes) if (!m.has(n.line)) m.set(n.line, n);
  return m;
}

function emitWhole(n: ConfigNode, depth: number, out: PlanLine[]): void {
  out.push({ depth, text: n.line });
  for (const c of n.children) emitWhole(c, depth + 1, out);
  if (n.children.length > 0) out.push({ depth: depth + 1, text: 'exit' });
}

function removeBlock(n: ConfigNode, depth: number, no: string): PlanLine[] {
  if (/^interface\s/i.test(n.line) && !VIRTUAL_INTERFACE.test(n.line)) {
    // A physical interface stays; what the session put under it goes.
    const inner = blockEdits([], n.children, depth + 1, no);
    return inner.length > 0 ? [{ depth, text: n.line }, ...inner, { depth: depth + 1, text: 'exit' }] : [];
  }
  return [{ depth, text: negate(n.line, no) }];
}

/**
 * The edits that turn the children `have` into `want` at one depth. Inside a
 * block: negations (gained lines, last first; gained sub-blocks), then what was
 * lost (sub-blocks whole, then lines), then the kept sub-blocks' own edits.
 */
function blockEdits(want: ConfigNode[], have: ConfigNode[], depth: number, no: string, o: { skipTopBlocks?: boolean } = {}): PlanLine[] {
  const wantBy = index(want);
  const haveBy = index(have);
  const resets = new Set(want.map((w) => settingKey(w.line)).filter((k): k is string => k !== undefined));
  const out: PlanLine[] = [];
  for (const h of [...have].reverse()) {
    if (wantBy.has(h.line)) continue;
    if (h.children.length > 0) {
      if (!o.skipTopBlocks) out.push(...removeBlock(h, depth, no));
      continue;
    }
    const key = settingKey(h.line);
    if (key !== undefined && resets.has(key)) continue;
    out.push({ depth, text: negate(h.line, no) });
  }
  for (const w of want) {
    if (haveBy.has(w.line)) continue;
    if (w.children.length > 0) {
      if (!o.skipTopBlocks) emitWhole(w, depth, out);
      continue;
    }
    out.push({ depth, text: w.line });
  }
  for (const w of want) {
    const h = haveBy.get(w.line);
    if (!h || (w.children.length === 0 && h.children.length === 0)) continue;
    const inner = blockEdits(w.children, h.children, depth + 1, no);
    if (inner.length > 0) out.push({ depth, text: w.line }, ...inner, { depth: depth + 1, text: 'exit' });
  }
  return out;
}

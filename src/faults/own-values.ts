/**
 * The device's own values in a fault's restore. A scenario's restore resets what it changed
 * to the platform default (`no ip ospf hello-interval`); a lab whose interface had its own
 * value (`ip ospf hello-interval 1`) would be left at the default, its adjacency down after
 * the "restore". So at injection time the sections the fault touches are read from the
 * running configuration, and every line there that the fault overrides or removes is kept:
 * the restore is the scenario's lines, then the device's own lines, in their sections.
 * Pure: the configuration comes in as text.
 */

/** A configuration line with the section heads it sits under (outermost first; none at the top level). */
interface ConfigLine {
  path: string[];
  line: string;
}

const squash = (s: string) => s.trim().replace(/\s+/g, ' ');
const lower = (s: string) => squash(s).toLowerCase();
/** Lines that move between configuration modes: they exist in no running configuration. */
const MODE_LINE = /^(exit|end|exit-address-family|exit-vrf|quit)$/i;
/** Lines that open a configuration mode when typed, whether or not the section exists yet. */
const SECTION_HEAD =
  /^(interface|router|address-family|ip access-list|ipv6 access-list|route-map|key chain|line|vrf|ip prefix-list\s+\S+\s*$)/i;

/** The running configuration as lines, each with the section heads above it (by indentation). */
export function configLines(config: string): { lines: ConfigLine[]; heads: Set<string> } {
  const lines: ConfigLine[] = [];
  const heads = new Set<string>();
  const stack: { indent: number; head: string }[] = [];
  for (const raw of config.split(/\r?\n/)) {
    const text = raw.replace(/\s+$/, '');
    const t = text.trim();
    if (t === '' || t.startsWith('!') || MODE_LINE.test(t)) continue;
    const indent = text.length - text.trimStart().length;
    while (stack.length > 0 && stack[stack.length - 1]!.indent >= indent) stack.pop();
    const path = stack.map((s) => s.head);
    lines.push({ path, line: squash(t) });
    // a line is a head when something indented follows it; remembered on the way
    stack.push({ indent, head: squash(t) });
  }
  for (const l of lines) if (l.path.length > 0) heads.add(lower(l.path.join('\n')));
  return { lines, heads };
}

const words = (s: string) => squash(s).split(' ');
const startsWithWords = (line: string, prefix: string) => {
  const a = words(lower(line));
  const b = words(lower(prefix));
  return b.length <= a.length && b.every((w, i) => a[i] === w);
};

/**
 * Does `own` set the same command as `sent`, up to its value (the last word)? A short command's
 * last word is a value only when it looks like one: `distance 90`, `ip mtu 1500`, but not
 * `passive-interface default` for `passive-interface eth0` (sent again, IOS would drop its
 * exceptions) nor `neighbor 10.0.12.2 activate` for `neighbor 10.0.12.2 shutdown`.
 */
function sameCommand(sent: string, own: string): boolean {
  const a = words(lower(sent));
  const b = words(lower(own));
  if (a.length < 2 || a.length !== b.length || !a.slice(0, -1).every((w, i) => b[i] === w)) return false;
  const value = a[a.length - 1]!;
  const key = a.length - 1;
  return key >= 3 || (key === 2 && /\d/.test(value)) || (key === 1 && /^\d+$/.test(value));
}

/** What the fault's lines touch in the section `path`: `no K` removes every line K…; `K v` overrides `K w`. */
function touches(sent: string, own: string): boolean {
  const s = squash(sent);
  const neg = /^no\s+(.+)$/i.exec(s);
  if (neg) return startsWithWords(own, neg[1]!);
  // the device had this very line: a restore's `no` would take away what was there before
  return lower(s) === lower(own) || sameCommand(s, own);
}

/** The inject (or restore) lines with the section each one is typed in. */
function linesInSections(lines: readonly string[], heads: Set<string>): ConfigLine[] {
  const out: ConfigLine[] = [];
  let path: string[] = [];
  for (const raw of lines) {
    const line = squash(raw);
    if (line === '') continue;
    if (/^exit-address-family$/i.test(line) || /^exit-vrf$/i.test(line)) {
      path = path.slice(0, -1);
      continue;
    }
    if (/^(exit|end|quit)$/i.test(line)) {
      path = /^exit$/i.test(line) ? path.slice(0, -1) : [];
      continue;
    }
    const nested = /^address-family\b/i.test(line) && path.length > 0;
    // a head known to the configuration (at this level or the top), or one that opens a mode
    const asChild = [...path, line];
    if (nested || heads.has(lower(asChild.join('\n')))) {
      path = asChild;
      continue;
    }
    if (heads.has(lower(line)) || SECTION_HEAD.test(line)) {
      path = [line];
      continue;
    }
    out.push({ path, line });
  }
  return out;
}

const samePath = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((h, i) => lower(h) === lower(b[i]!));

/**
 * The device's own lines the fault's `inject` lines override or remove (read from `config`,
 * the running configuration before the fault), that the scenario's `restore` lines do not
 * put back already, as configuration lines to send after the restore: each with its section
 * heads, and the exits back to the top level. Empty when the device had no value of its own.
 */
export function ownValueLines(inject: readonly string[], restore: readonly string[], config: string): string[] {
  const { lines, heads } = configLines(config);
  const sent = linesInSections(inject, heads);
  const restored = linesInSections(restore, heads);
  const kept: ConfigLine[] = [];
  for (const own of lines) {
    // a section head with lines under it is not a value: its lines are compared one by one
    if (heads.has(lower([...own.path, own.line].join('\n')))) continue;
    if (!sent.some((s) => samePath(s.path, own.path) && touches(s.line, own.line))) continue;
    if (restored.some((r) => samePath(r.path, own.path) && lower(r.line) === lower(own.line))) continue;
    if (kept.some((k) => samePath(k.path, own.path) && lower(k.line) === lower(own.line))) continue;
    kept.push(own);
  }
  const out: string[] = [];
  let at: string[] = [];
  const leave = (to: number) => {
    while (at.length > to) {
      out.push(/^address-family\b/i.test(at[at.length - 1]!) ? 'exit-address-family' : 'exit');
      at = at.slice(0, -1);
    }
  };
  for (const k of kept) {
    let common = 0;
    while (common < at.length && common < k.path.length && lower(at[common]!) === lower(k.path[common]!)) common++;
    leave(common);
    for (const h of k.path.slice(common)) {
      out.push(h);
      at = [...at, h];
    }
    out.push(k.line);
  }
  leave(0);
  return out;
}

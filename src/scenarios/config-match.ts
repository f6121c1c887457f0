/**
 * Parameter values read out of a device's running configuration: a scenario's restore
 * lines describe the healthy lab (`router bgp {{local_as}}`, `neighbor {{neighbor}}
 * remote-as {{remote_as}}`), so the lines of the configuration they match give the values
 * the fault needs. The inverse of src/faults/spec.ts `matchInject`, which reads them out
 * of the lines sent. Pure.
 */

const PLACEHOLDER = /\{\{\s*([a-z][a-z0-9_]*)\s*\}\}/g;

/**
 * What one placeholder may stand for in a configuration line. IOS writes an address, a
 * prefix and a network as two dotted quads (`10.0.12.1 255.255.255.0`); everything else is
 * one word.
 */
const DOTTED_PAIR = '(\\d+\\.\\d+\\.\\d+\\.\\d+ \\d+\\.\\d+\\.\\d+\\.\\d+)';
const PAIRS_ON: Record<string, readonly string[]> = { cisco_ios: ['address', 'prefix', 'host_prefix', 'network'] };

export type Values = Record<string, string>;

/** Lines that move between configuration modes: they exist in no running configuration. */
const MODE_LINE = /^(exit|end|exit-address-family|exit-vrf|quit)$/i;

const squash = (s: string) => s.trim().replace(/\s+/g, ' ');

interface Template {
  re: RegExp;
  names: string[];
}

function compile(line: string, platform: string): Template {
  const names: string[] = [];
  const pairs = PAIRS_ON[platform] ?? [];
  const re = squash(line)
    .split(/(\{\{\s*[a-z][a-z0-9_]*\s*\}\})/)
    .map((part) => {
      const m = /^\{\{\s*([a-z][a-z0-9_]*)\s*\}\}$/.exec(part);
      if (!m) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(m[1]!);
      return pairs.includes(m[1]!) ? DOTTED_PAIR : '(\\S+)';
    })
    .join('');
  return { re: new RegExp(`^${re}$`, 'i'), names };
}

/** The values a line gives a template, or undefined when it does not match or contradicts `known`. */
function matchLine(t: Template, line: string, known: Values): Values | undefined {
  const m = t.re.exec(squash(line));
  if (!m) return undefined;
  const out: Values = { ...known };
  for (const [i, name] of t.names.entries()) {
    const v = m[i + 1]!;
    if (out[name] !== undefined && out[name].toLowerCase() !== v.toLowerCase()) return undefined;
    out[name] = v;
  }
  return out;
}

interface Block {
  head: string;
  /** the indented lines under it, at any depth */
  body: string[];
}

/** A running configuration as its top-level lines, each with the indented lines under it. */
export function configBlocks(config: string): Block[] {
  const blocks: Block[] = [];
  for (const raw of config.split(/\r?\n/)) {
    const line = raw.replace(/\s+$/, '');
    if (line.trim() === '' || /^\s*!/.test(line)) continue;
    if (/^\s/.test(line)) blocks[blocks.length - 1]?.body.push(line.trim());
    else blocks.push({ head: line, body: [] });
  }
  return blocks;
}

/**
 * The restore lines as segments that start at the top level: the first positive line of a
 * segment is a top-level line, the positive lines after it are inside its block. `no …` lines
 * undo the fault and are not in a healthy configuration; mode lines are nowhere.
 */
function segments(lines: readonly string[]): string[][] {
  const out: string[][] = [[]];
  for (const l of lines) {
    if (/^(exit|end|quit)$/i.test(l.trim())) {
      out.push([]);
      continue;
    }
    if (MODE_LINE.test(l.trim()) || /^no\s/i.test(l.trim())) continue;
    out[out.length - 1]!.push(l);
  }
  return out.filter((s) => s.length > 0);
}

const MAX_CANDIDATES = 64;

/** Every way one segment matches the configuration, given the values known so far. */
function matchSegment(seg: string[], blocks: Block[], known: Values, platform: string): Values[] {
  const [head, ...inner] = seg.map((l) => compile(l, platform));
  const out: Values[] = [];
  for (const b of blocks) {
    const top = matchLine(head!, b.head, known);
    if (!top) continue;
    let partial: Values[] = [top];
    for (const t of inner) {
      partial = partial
        .flatMap((v) =>
          b.body.flatMap((l) => {
            const m = matchLine(t, l, v);
            return m ? [m] : [];
          }),
        )
        .slice(0, MAX_CANDIDATES);
      if (partial.length === 0) break;
    }
    out.push(...partial);
    if (out.length >= MAX_CANDIDATES) break;
  }
  return out;
}

export type ConfigMatch =
  /** the value sets the configuration allows, in configuration order (deduplicated) */
  | { ok: true; candidates: Values[] }
  /** a line of the healthy state is in no block: the one that failed, filled with what is known */
  | { ok: false; line: string };

/**
 * The values the restore lines take in this configuration. Placeholders a line does not
 * contain stay unknown; `known` (values given by the user) must be respected.
 */
export function matchConfig(restore: readonly string[], config: string, platform: string, known: Values = {}): ConfigMatch {
  const blocks = configBlocks(config);
  let candidates: Values[] = [known];
  for (const seg of segments(restore)) {
    const next = candidates.flatMap((v) => matchSegment(seg, blocks, v, platform)).slice(0, MAX_CANDIDATES);
    if (next.length === 0)
      return { ok: false, line: seg.map((l) => squash(l.replace(PLACEHOLDER, (w, n: string) => known[n] ?? w))).join(' / ') };
    candidates = next;
  }
  const seen = new Set<string>();
  return {
    ok: true,
    candidates: candidates.filter((c) => {
      const k = JSON.stringify(Object.entries(c).sort());
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    }),
  };
}

/** The placeholder names of some lines, in order of first appearance. */
export function placeholdersOf(texts: readonly string[]): string[] {
  const out: string[] = [];
  for (const t of texts) for (const m of t.matchAll(PLACEHOLDER)) if (!out.includes(m[1]!)) out.push(m[1]!);
  return out;
}

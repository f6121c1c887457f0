/**
 * A small terminal markdown renderer: headings, lists, block quotes, fenced
 * code, tables, rules, and inline code/bold/italic/links. Output is an array of
 * display lines already wrapped to `width`: ANSI-styled when colour is on; without
 * colour (NO_COLOR) the Markdown markers stay (`# `, `**`, backticks, `- `, `> `),
 * since they are then the only thing that sets code apart from prose. Lines come wrapped so
 * the live region can count its height exactly. Code blocks are never
 * reflowed: device output keeps its column alignment (a line wider than the
 * terminal is hard-wrapped, not re-spaced). Unterminated fences (mid-stream)
 * render as code.
 */
import { createStyle, displayWidth, type Style } from './style.js';

export interface MarkdownOptions {
  width: number;
  color: boolean;
}

const SGR = /\u001b\[([0-9;]*)m/y;
const CLOSERS: Record<string, string[]> = { '0': ['*'], '22': ['1', '2'], '23': ['3'], '24': ['4'], '39': ['3x'] };

/** Splits a styled string into visible chars, each with the SGR sequences that precede it. */
function* ansiChars(s: string): Generator<{ sgr: string[]; ch: string }> {
  let i = 0;
  let pending: string[] = [];
  while (i < s.length) {
    SGR.lastIndex = i;
    const m = SGR.exec(s);
    if (m) {
      pending.push(m[0]);
      i += m[0].length;
      continue;
    }
    const ch = String.fromCodePoint(s.codePointAt(i)!);
    yield { sgr: pending, ch };
    pending = [];
    i += ch.length;
  }
  if (pending.length) yield { sgr: pending, ch: '' };
}

/** Tracks which SGR styles are open so a wrapped line can close and reopen them. */
class SgrState {
  private open: string[] = [];
  apply(seq: string): void {
    const code = /\[([0-9;]*)m/.exec(seq)?.[1] ?? '0';
    if (code === '0' || code === '') {
      this.open = [];
      return;
    }
    const closes = CLOSERS[code];
    if (closes) {
      this.open = this.open.filter((o) => {
        const c = /\[([0-9;]*)m/.exec(o)?.[1] ?? '';
        if (closes.includes('3x')) return !(c.length === 2 && c.startsWith('3'));
        return !closes.includes(c);
      });
      return;
    }
    this.open.push(seq);
  }
  get active(): string {
    return this.open.join('');
  }
}

/**
 * Word-wraps one styled line to `width` columns; continuation lines start with
 * `indent` (hanging indent for list items). Words longer than a line are split.
 */
export function wrapLine(line: string, width: number, indent = '', hard = false): string[] {
  const w = Math.max(4, width);
  if (displayWidth(line) <= w) return [line];
  const out: string[] = [];
  const state = new SgrState();
  const indentW = displayWidth(indent);
  let cur = '';
  let curW = 0;
  // Position in `cur` right after the last space (word wrap point) and the state there.
  let lastSpace = -1;
  let lastSpaceW = 0;
  let lastSpaceActive = '';
  const flush = (text: string, active: string) => {
    out.push(active ? text + '\u001b[0m' : text);
  };
  for (const { sgr, ch } of ansiChars(line)) {
    for (const q of sgr) {
      state.apply(q);
      cur += q;
    }
    if (!ch) continue;
    const cw = displayWidth(ch);
    if (curW + cw > w) {
      if (!hard && ch === ' ') {
        flush(cur, state.active);
        cur = indent + state.active;
        curW = indentW;
        lastSpace = -1;
        continue;
      }
      if (!hard && lastSpace > 0 && lastSpaceW > indentW) {
        const head = cur.slice(0, lastSpace);
        const tail = cur.slice(lastSpace);
        flush(head.replace(/ +$/, ''), lastSpaceActive);
        cur = indent + lastSpaceActive + tail;
        curW = indentW + displayWidth(tail);
      } else {
        flush(cur, state.active);
        cur = (hard ? '' : indent) + state.active;
        curW = hard ? 0 : indentW;
      }
      lastSpace = -1;
    }
    cur += ch;
    curW += cw;
    if (ch === ' ' && !hard) {
      lastSpace = cur.length;
      lastSpaceW = curW;
      lastSpaceActive = state.active;
    }
  }
  if (cur) out.push(cur);
  return out;
}

/** Inline markdown: `code`, **bold**, __bold__, *italic*, _italic_, [text](url). */
export function renderInline(text: string, st: Style): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    let m: RegExpExecArray | null;
    if (rest[0] === '\\' && rest.length > 1 && /[\\`*_[\]#|]/.test(rest[1]!)) {
      out += rest[1];
      i += 2;
    } else if ((m = /^(`+)([\s\S]*?[^`])\1(?!`)/.exec(rest))) {
      out += st.color ? st.cyan(m[2]!) : m[0];
      i += m[0].length;
    } else if ((m = /^(\*\*|__)(?=\S)([\s\S]*?\S)\1/.exec(rest))) {
      out += st.color ? st.bold(renderInline(m[2]!, st)) : m[1]! + renderInline(m[2]!, st) + m[1]!;
      i += m[0].length;
    } else if ((m = /^(\*|_)(?=\S)([\s\S]*?\S)\1(?![\w*])/.exec(rest)) && (m[1] === '*' || !/\w/.test(text[i - 1] ?? ''))) {
      out += st.color ? st.italic(renderInline(m[2]!, st)) : m[1]! + renderInline(m[2]!, st) + m[1]!;
      i += m[0].length;
    } else if ((m = /^\[([^\]]+)\]\(([^)\s]+)\)/.exec(rest))) {
      out += m[1] === m[2] ? st.underline(m[2]!) : `${renderInline(m[1]!, st)} (${st.underline(m[2]!)})`;
      i += m[0].length;
    } else {
      // Copy plain text up to the next possible markup character in one go.
      const next = rest.slice(1).search(/[\\`*_[]/);
      const n = next === -1 ? rest.length : next + 1;
      out += rest.slice(0, n);
      i += n;
    }
  }
  return out;
}

type Align = 'left' | 'right' | 'center';

function splitRow(line: string): string[] {
  let t = line.trim();
  if (t.startsWith('|')) t = t.slice(1);
  if (t.endsWith('|') && !t.endsWith('\\|')) t = t.slice(0, -1);
  const cells: string[] = [];
  let cur = '';
  for (let i = 0; i < t.length; i++) {
    if (t[i] === '\\' && t[i + 1] === '|') {
      cur += '|';
      i++;
    } else if (t[i] === '|') {
      cells.push(cur.trim());
      cur = '';
    } else cur += t[i];
  }
  cells.push(cur.trim());
  return cells;
}

const isSeparatorRow = (line: string) => /^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$/.test(line) && line.includes('-');

function pad(s: string, w: number, align: Align): string {
  const gap = Math.max(0, w - displayWidth(s));
  if (align === 'right') return ' '.repeat(gap) + s;
  if (align === 'center') return ' '.repeat(Math.floor(gap / 2)) + s + ' '.repeat(Math.ceil(gap / 2));
  return s + ' '.repeat(gap);
}

/** Cuts a styled cell to `w` columns with an ellipsis. */
function fit(s: string, w: number): string {
  if (displayWidth(s) <= w) return s;
  let out = '';
  let used = 0;
  for (const { sgr, ch } of ansiChars(s)) {
    out += sgr.join('');
    const cw = displayWidth(ch);
    if (used + cw > w - 1) break;
    out += ch;
    used += cw;
  }
  return out + '\u001b[0m…';
}

function renderTable(rows: string[][], aligns: Align[], width: number, st: Style): string[] {
  const cols = Math.max(...rows.map((r) => r.length));
  const cells = rows.map((r) => Array.from({ length: cols }, (_, i) => renderInline(r[i] ?? '', st)));
  const widths = Array.from({ length: cols }, (_, i) => Math.max(1, ...cells.map((r) => displayWidth(r[i]!))));
  // Borders: " a │ b " → 3 columns per separator plus 1 each side.
  const budget = width - (cols - 1) * 3 - 2;
  while (widths.reduce((a, b) => a + b, 0) > budget && Math.max(...widths) > 3) {
    const i = widths.indexOf(Math.max(...widths));
    widths[i]! -= 1;
  }
  const sep = st.dim(' │ ');
  const line = (r: string[], header: boolean) =>
    ' ' + r.map((c, i) => pad(header ? st.bold(fit(c, widths[i]!)) : fit(c, widths[i]!), widths[i]!, aligns[i] ?? 'left')).join(sep);
  const rule = st.dim('─' + widths.map((w) => '─'.repeat(w)).join('─┼─') + '─');
  const out = [line(cells[0]!, true), rule];
  for (const r of cells.slice(1)) out.push(line(r, false));
  return out;
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([\w+#.-]*)/;

export function renderMarkdown(md: string, opts: MarkdownOptions): string[] {
  const st = createStyle(opts.color);
  const width = Math.max(10, opts.width);
  const src = md.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let i = 0;
  while (i < src.length) {
    const raw = src[i]!;
    const fence = FENCE.exec(raw);
    if (fence) {
      const marker = fence[2]!;
      const lang = fence[3] ?? '';
      out.push(st.dim(lang ? `┌─ ${lang}` : '┌─'));
      i++;
      while (i < src.length && !src[i]!.trimStart().startsWith(marker)) {
        // Tabs would break alignment measurements; expand them to 8-column stops.
        const code = expandTabs(src[i]!);
        out.push(...wrapLine(code, width, '', true));
        i++;
      }
      if (i < src.length) {
        out.push(st.dim('└─'));
        i++;
      }
      continue;
    }
    if (raw.trimStart().startsWith('|') && i + 1 < src.length && isSeparatorRow(src[i + 1]!)) {
      const header = splitRow(raw);
      const aligns: Align[] = splitRow(src[i + 1]!).map((c) =>
        c.startsWith(':') && c.endsWith(':') ? 'center' : c.endsWith(':') ? 'right' : 'left',
      );
      const rows = [header];
      i += 2;
      while (i < src.length && src[i]!.trim().startsWith('|')) {
        rows.push(splitRow(src[i]!));
        i++;
      }
      out.push(...renderTable(rows, aligns, width, st));
      continue;
    }
    i++;
    const line = raw.replace(/\s+$/, '');
    if (line.trim() === '') {
      // Collapse runs of blank lines; never start with one.
      if (out.length > 0 && out[out.length - 1] !== '') out.push('');
      continue;
    }
    let m: RegExpExecArray | null;
    if ((m = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*$/.exec(line))) {
      const level = m[1]!.length;
      const text = renderInline(m[2]!, st);
      const styled = !st.color
        ? `${m[1]!} ${text}`
        : level === 1
          ? st.bold(st.underline(text))
          : level === 2
            ? st.bold(text)
            : st.bold(st.dim(text));
      out.push(...wrapLine(styled, width));
      continue;
    }
    if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) {
      out.push(st.dim('─'.repeat(Math.min(width, 40))));
      continue;
    }
    if ((m = /^(\s*)([-*+]|\d{1,3}[.)])\s+(\[[ xX]\]\s+)?(.*)$/.exec(line))) {
      const depth = Math.floor(m[1]!.replace(/\t/g, '  ').length / 2);
      const ordered = /\d/.test(m[2]!);
      const done = m[3]?.trim().toLowerCase() === '[x]';
      const task = !m[3] ? '' : st.color ? (done ? '☑ ' : '☐ ') : done ? '[x] ' : '[ ] ';
      const bullet = ordered ? m[2]! : !st.color ? '-' : depth % 2 === 0 ? '•' : '◦';
      const lead = '  '.repeat(depth) + bullet + ' ';
      out.push(...wrapLine(lead + task + renderInline(m[4]!, st), width, ' '.repeat(displayWidth(lead))));
      continue;
    }
    if ((m = /^\s*>\s?(.*)$/.exec(line))) {
      const bar = st.color ? st.dim('│ ') : '> ';
      out.push(...wrapLine(bar + st.italic(renderInline(m[1]!, st)), width, bar));
      continue;
    }
    out.push(...wrapLine(renderInline(line.trim(), st), width));
  }
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out;
}

export function expandTabs(line: string): string {
  if (!line.includes('\t')) return line;
  let out = '';
  for (const ch of line) {
    if (ch === '\t') out += ' '.repeat(8 - (out.length % 8));
    else out += ch;
  }
  return out;
}

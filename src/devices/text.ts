/**
 * Turning raw console bytes (already decoded, telnet commands removed) into the
 * text a person would read: no ANSI codes, no backspace redraws, `\n` endings.
 */

// CSI / OSC / charset / single-char escapes. OSC ends at BEL or ST.
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[()][A-Za-z0-9]|\x1b[=>78DEHMNOc]/g;

export function stripAnsi(s: string): string {
  return s.replace(ANSI, '');
}

/** Applies backspaces the way a terminal would (a pager erasing ` --More-- `). */
function applyBackspaces(s: string): string {
  if (!s.includes('\b')) return s;
  const out: string[] = [];
  for (const ch of s) {
    if (ch === '\b') {
      if (out.length > 0 && out[out.length - 1] !== '\n') out.pop();
    } else out.push(ch);
  }
  return out.join('');
}

/**
 * Normalises console text: CRLF/CR NUL → LF, lone CR dropped (VPCS draws its
 * prompt as `\r\n\rPC1> `, pagers return to column 0 before erasing), other
 * control characters removed, backspaces applied, trailing spaces on
 * lines trimmed except on the last line (where a prompt's trailing space matters).
 */
export function cleanText(s: string): string {
  let t = stripAnsi(s);
  t = t.replace(/\r\0/g, '\r').replace(/\r+\n/g, '\n');
  t = applyBackspaces(t);
  t = t.replace(/\r/g, '');
  t = t.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '');
  return t.replace(/[ \t]+\n/g, '\n');
}

/** The text after the last newline (the line a prompt would be on). */
export function lastLine(s: string): string {
  const i = s.lastIndexOf('\n');
  return i < 0 ? s : s.slice(i + 1);
}

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

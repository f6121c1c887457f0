/**
 * Minimal ANSI styling for strings rendered outside Ink's <Text> props (the
 * markdown renderer). One switch turns it all off (NO_COLOR / --no-color).
 */
export interface Style {
  readonly color: boolean;
  bold(s: string): string;
  dim(s: string): string;
  italic(s: string): string;
  underline(s: string): string;
  cyan(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  red(s: string): string;
  magenta(s: string): string;
  blue(s: string): string;
}

const wrap = (open: number, close: number) => (s: string) => (s ? `\u001b[${open}m${s}\u001b[${close}m` : s);

export function createStyle(color: boolean): Style {
  if (!color) {
    const id = (s: string) => s;
    return { color, bold: id, dim: id, italic: id, underline: id, cyan: id, green: id, yellow: id, red: id, magenta: id, blue: id };
  }
  return {
    color,
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    italic: wrap(3, 23),
    underline: wrap(4, 24),
    cyan: wrap(36, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    red: wrap(31, 39),
    magenta: wrap(35, 39),
    blue: wrap(34, 39),
  };
}

const ANSI = /\u001b\[[0-9;]*m/g;
export function stripAnsi(s: string): string {
  return s.replace(ANSI, '');
}

/** Display width: ANSI stripped, East Asian wide chars count 2, combining marks 0. */
export function displayWidth(s: string): number {
  let w = 0;
  for (const ch of stripAnsi(s)) {
    const cp = ch.codePointAt(0)!;
    if (cp < 32 || (cp >= 0x300 && cp <= 0x36f) || cp === 0x200b) continue;
    if (
      (cp >= 0x1100 && cp <= 0x115f) ||
      (cp >= 0x2e80 && cp <= 0xa4cf) ||
      (cp >= 0xac00 && cp <= 0xd7a3) ||
      (cp >= 0xf900 && cp <= 0xfaff) ||
      (cp >= 0xfe30 && cp <= 0xfe4f) ||
      (cp >= 0xff00 && cp <= 0xff60) ||
      (cp >= 0xffe0 && cp <= 0xffe6) ||
      (cp >= 0x1f300 && cp <= 0x1faff) ||
      (cp >= 0x20000 && cp <= 0x3fffd)
    ) {
      w += 2;
    } else w += 1;
  }
  return w;
}

/** Whether colour is wanted: settings.color false, NO_COLOR set (any value), or TERM=dumb turn it off. */
export function colorEnabled(settingsColor: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  if (!settingsColor) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return true;
}

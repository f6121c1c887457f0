/**
 * A grid of character cells, each with a style name, that the map draws on. Lines are
 * drawn as the directions they leave a cell in, so corners, tees and crossings get the
 * right box-drawing character whatever order links are drawn in. A view of any window of
 * it comes out as styled text lines (the TUI pans over it; `map` prints it all).
 */
import type { Style } from '../style.js';

export type CellStyle = 'plain' | 'started' | 'stopped' | 'suspended' | 'other' | 'name' | 'line' | 'dotted' | 'port' | 'marker';

const N = 1;
const E = 2;
const S = 4;
const W = 8;

const LINE_CHARS: Record<number, string> = {
  [E | W]: '─',
  [N | S]: '│',
  [E | S]: '┌',
  [W | S]: '┐',
  [N | E]: '└',
  [N | W]: '┘',
  [N | E | S]: '├',
  [N | W | S]: '┤',
  [E | W | S]: '┬',
  [E | W | N]: '┴',
  [N | E | S | W]: '┼',
  [N]: '│',
  [S]: '│',
  [E]: '─',
  [W]: '─',
};

export class Canvas {
  private readonly ch: string[];
  private readonly style: CellStyle[];
  private readonly mask: Uint8Array;
  /** cells some dotted (suspended) link passes through, and cells a solid one does */
  private readonly dotted: Uint8Array;
  private readonly solid: Uint8Array;
  private readonly blocked: Uint8Array;

  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    const n = width * height;
    this.ch = Array<string>(n).fill(' ');
    this.style = Array<CellStyle>(n).fill('plain');
    this.mask = new Uint8Array(n);
    this.dotted = new Uint8Array(n);
    this.solid = new Uint8Array(n);
    this.blocked = new Uint8Array(n);
  }

  private at(x: number, y: number): number {
    return x >= 0 && y >= 0 && x < this.width && y < this.height ? y * this.width + x : -1;
  }

  /** Cells no line may cross (a node's box). */
  block(left: number, top: number, w: number, h: number): void {
    for (let y = top; y < top + h; y++)
      for (let x = left; x < left + w; x++) {
        const i = this.at(x, y);
        if (i >= 0) this.blocked[i] = 1;
      }
  }

  isFree(x: number, y: number): boolean {
    const i = this.at(x, y);
    return i >= 0 && !this.blocked[i] && this.mask[i] === 0 && this.ch[i] === ' ';
  }

  /** One step of a line from (x, y) to a neighbouring cell. */
  step(x: number, y: number, nx: number, ny: number, dotted: boolean): void {
    const dir = nx > x ? E : nx < x ? W : ny > y ? S : N;
    const back = dir === E ? W : dir === W ? E : dir === S ? N : S;
    this.mark(x, y, dir, dotted);
    this.mark(nx, ny, back, dotted);
  }

  /** A line end that touches a box: the cell points into the box. */
  stub(x: number, y: number, towardX: number, towardY: number, dotted: boolean): void {
    const dir = towardX > x ? E : towardX < x ? W : towardY > y ? S : N;
    this.mark(x, y, dir, dotted);
  }

  private mark(x: number, y: number, dir: number, dotted: boolean): void {
    const i = this.at(x, y);
    if (i < 0 || this.blocked[i]) return;
    this.mask[i] = this.mask[i]! | dir;
    if (dotted) this.dotted[i] = 1;
    else this.solid[i] = 1;
  }

  text(x: number, y: number, s: string, style: CellStyle): void {
    [...s].forEach((c, k) => {
      const i = this.at(x + k, y);
      if (i < 0) return;
      this.ch[i] = c;
      this.style[i] = style;
      this.mask[i] = 0;
    });
  }

  /** The character a line cell shows: box drawing from its directions; dotted where only suspended links pass. */
  private lineChar(i: number): string {
    const c = LINE_CHARS[this.mask[i]!] ?? '┼';
    if (this.dotted[i] && !this.solid[i]) return c === '─' ? '┄' : c === '│' ? '┆' : c;
    return c;
  }

  /** The window (x0, y0, w, h) as text lines, styled by `paint` (trailing blanks dropped). */
  view(x0: number, y0: number, w: number, h: number, paint: (s: string, style: CellStyle) => string): string[] {
    const out: string[] = [];
    for (let y = y0; y < Math.min(this.height, y0 + h); y++) {
      let line = '';
      let run = '';
      let runStyle: CellStyle = 'plain';
      for (let x = x0; x < Math.min(this.width, x0 + w); x++) {
        const i = y * this.width + x;
        const isLine = this.mask[i]! !== 0;
        const c = isLine ? this.lineChar(i) : this.ch[i]!;
        const st: CellStyle = isLine ? (this.dotted[i] && !this.solid[i] ? 'dotted' : 'line') : this.style[i]!;
        if (st !== runStyle && run) {
          line += paint(run, runStyle);
          run = '';
        }
        runStyle = st;
        run += c;
      }
      if (run) line += paint(runStyle === 'plain' ? run.trimEnd() : run, runStyle);
      out.push(line.trimEnd());
    }
    return out;
  }
}

/** How a style name looks: colour only when the Style has colour (NO_COLOR keeps the words and lines). */
export function painter(style: Style): (s: string, st: CellStyle) => string {
  return (s, st) => {
    switch (st) {
      case 'started':
        return style.green(s);
      case 'stopped':
        return style.red(s);
      case 'suspended':
      case 'dotted':
        return style.yellow(s);
      case 'name':
        return style.bold(s);
      case 'port':
        return style.cyan(s);
      case 'marker':
        return style.magenta(style.bold(s));
      case 'line':
        return style.dim(s);
      default:
        return s;
    }
  };
}

/**
 * Terminal sanitising: text from the model, tools, devices, the controller or
 * the sessions DB is reduced to printable characters before a terminal sink
 * (one-shot text mode, the TUI, `sessions list/show/export`, stderr) shows
 * it. Removed: ESC sequences (CSI such as ESC[2J, OSC 0/8 titles and links,
 * DCS/APC/PM/SOS strings, alternate-screen switches, two-char escapes), C1
 * controls (U+0080–U+009F, incl. the 8-bit CSI U+009B and OSC U+009D), C0
 * controls other than newline and tab (CR and BS overwrites, BEL), and the
 * bidi controls that reorder what is displayed (embeddings, overrides,
 * isolates, and the LRM/RLM/ALM marks). The project's own styling is added
 * afterwards by the sinks. JSON output is not sanitised but escaped
 * (src/output/json-text.ts): it keeps the characters, as \uXXXX.
 */
import { mapStrings } from './map-strings.js';

// String-introducing escapes (OSC, DCS, SOS, PM, APC; 7- and 8-bit), up to their terminator (BEL or ST) or the end.
const STRING_SEQ = /(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?/g;
// CSI (ESC[ or 8-bit U+009B) with parameters and final byte.
const CSI_SEQ = /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?/g;
// Any other escape: ESC + intermediates + final (ESC 7, ESC c, ESC ( B …), or a lone ESC.
const OTHER_ESC = /\x1b[ -/]*[0-~]?/g;
// C0 except \t and \n, DEL, C1, and bidi embedding/override/isolate controls.
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Printable text; newlines and tabs are kept (CRLF becomes LF). */
export function sanitizeText(s: string): string {
  if (!s) return s;
  // fast path: nothing to strip in the common case
  if (!/[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(s)) return s;
  return s.replace(/\r\n/g, '\n').replace(STRING_SEQ, '').replace(CSI_SEQ, '').replace(OTHER_ESC, '').replace(CONTROLS, '');
}

/** One line: as sanitizeText, with newlines and tabs turned into spaces (titles, table cells, error lines). */
export function sanitizeLine(s: string): string {
  return sanitizeText(s).replace(/[\n\t]+/g, ' ');
}

/** sanitizeText on every string inside a JSON-like value (events, transcripts, topology). */
export function sanitizeDeep<T>(value: T): T {
  return mapStrings(value, sanitizeText);
}

// An escape sequence still open at the end of a chunk: lone ESC, CSI without its
// final byte, or an OSC/DCS/… string without its terminator.
const OPEN_TAIL = /(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*\x1b?$|(?:\x1b\[|\x9b)[0-?]*[ -/]*$|\x1b[ -/]*$|\r$/;

/**
 * Streaming text (model deltas) may split an escape sequence across chunks;
 * an open sequence at the end of a chunk is held until the next one, so the
 * rest of an OSC title never shows up as text. Holds at most 4 KB.
 */
export class StreamSanitizer {
  private held = '';
  push(delta: string): string {
    let text = this.held + delta;
    this.held = '';
    const open = OPEN_TAIL.exec(text);
    if (open && text.length - open.index <= 4096) {
      this.held = text.slice(open.index);
      text = text.slice(0, open.index);
    }
    return sanitizeText(text);
  }
  flush(): string {
    const rest = this.held;
    this.held = '';
    return sanitizeText(rest);
  }
}

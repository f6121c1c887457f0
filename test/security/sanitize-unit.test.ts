/**
 * The terminal sanitiser and the JSON escaper in-process (the quick loop and
 * the mutation run): every escape family, unterminated strings, the streaming
 * sanitiser holding a sequence split across deltas, and JSON output keeping
 * C1 and bidi characters as \uXXXX.
 */
import { describe, expect, it } from 'vitest';
import { sanitizeDeep, sanitizeLine, sanitizeText, StreamSanitizer } from '../../src/security/sanitize.js';
import { jsonText } from '../../src/output/json-text.js';

const NASTY =
  '\x1b]0;PWNED-TITLE\x07\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\\x1b[2J\x1b[?1049h\x9b31mred\x1b[0m\rOVER\bX\u202e';

describe('sanitizeText', () => {
  it('keeps printable text, newlines and tabs', () => {
    expect(sanitizeText(`a${NASTY}\tb\r\nc`)).toBe('aclickredOVERX\tb\nc');
    expect(sanitizeLine('x\ny\tz')).toBe('x y z');
    expect(sanitizeLine('x\n\n\t y')).toBe('x  y');
    expect(sanitizeText('\x1bP1;2qsixel\x1b\\ok\x1b7\x1bc')).toBe('ok');
    expect(sanitizeText('')).toBe('');
    expect(sanitizeText('plain ünïcode → text')).toBe('plain ünïcode → text');
  });

  it('drops every string escape up to its terminator, and to the end when it never ends', () => {
    expect(sanitizeText('a\x1b]0;title\x07b')).toBe('ab'); // OSC ... BEL
    expect(sanitizeText('a\x1b]0;title\x1b\\b')).toBe('ab'); // OSC ... ST
    expect(sanitizeText('a\x9d0;title\x9cb')).toBe('ab'); // 8-bit OSC ... 8-bit ST
    expect(sanitizeText('a\x1b_apc\x07b\x1b^pm\x07c\x1bXsos\x07d')).toBe('abcd');
    expect(sanitizeText('a\x90dcs\x9cb\x98sos\x9cc\x9epm\x9cd\x9fapc\x9ce')).toBe('abcde');
    // unterminated: everything after the introducer is the string's payload
    expect(sanitizeText('safe\x1b]0;EVIL title never ends')).toBe('safe');
    expect(sanitizeText('safe\x1bPq#0;2;0;0;0 sixel never ends')).toBe('safe');
    expect(sanitizeText('safe\x9d8;;http://x/ never ends')).toBe('safe');
  });

  it('drops CSI with parameters and intermediates, other escapes, C0, DEL, C1 and bidi controls', () => {
    expect(sanitizeText('a\x1b[38;5;196mred\x1b[0m')).toBe('ared');
    expect(sanitizeText('a\x9b2Jb')).toBe('ab');
    expect(sanitizeText('a\x1b[ qb')).toBe('ab'); // intermediate byte
    expect(sanitizeText('a\x1b(Bb\x1b7c\x1b')).toBe('abc');
    expect(sanitizeText('a\x00b\x07c\x08d\x0be\x0cf\x1fg\x7fh')).toBe('abcdefgh');
    expect(sanitizeText('a\x85b\x80c\x9ad')).toBe('abcd');
    const bidi = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c'];
    for (const c of bidi) expect(sanitizeText(`x${c}y`), `U+${c.charCodeAt(0).toString(16)}`).toBe('xy');
    expect(sanitizeText('a\rb')).toBe('ab');
  });

  it('sanitizeDeep cleans every string of a JSON-like value and keeps the rest', () => {
    expect(sanitizeDeep({ a: 'x\x1b[2Jy', b: ['\x9b1m', 2, null], c: { d: true } })).toEqual({ a: 'xy', b: ['', 2, null], c: { d: true } });
  });
});

describe('StreamSanitizer', () => {
  it('holds an escape split across deltas until it completes, so its payload never shows as text', () => {
    const s = new StreamSanitizer();
    expect(s.push('hi \x1b]0;ti')).toBe('hi ');
    expect(s.push('tle\x07 there')).toBe(' there');
    expect(s.push('a\x1b[')).toBe('a');
    expect(s.push('2Jb')).toBe('b');
    expect(s.push('c\x1b')).toBe('c');
    expect(s.push('[31md')).toBe('d');
    expect(s.push('e\x9b1;')).toBe('e');
    expect(s.push('2mf')).toBe('f');
    expect(s.push('g\x1b]8;;http://x/\x1b')).toBe('g');
    expect(s.push('\\link')).toBe('link');
    expect(s.flush()).toBe('');
  });

  it('holds a trailing CR so CRLF split across deltas becomes one newline', () => {
    const s = new StreamSanitizer();
    expect(s.push('line\r')).toBe('line');
    expect(s.push('\nnext')).toBe('\nnext');
  });

  it('flush releases what is held, cleaned', () => {
    const s = new StreamSanitizer();
    expect(s.push('tail\x1b]0;never ends')).toBe('tail');
    expect(s.flush()).toBe('');
    expect(s.push('x\r')).toBe('x');
    expect(s.flush()).toBe('');
    expect(s.push('ok')).toBe('ok');
  });

  it('holds an open string of up to 4 KB, then gives up holding (the text is still cleaned)', () => {
    const at = new StreamSanitizer();
    const open4k = '\x1b]0;' + 'a'.repeat(4096 - 4);
    expect(at.push(`v${open4k}`)).toBe('v');
    expect(at.push('\x07w')).toBe('w');
    const over = new StreamSanitizer();
    expect(over.push(`v${open4k}a`)).toBe('v');
    // not held: the next delta is not treated as the rest of the title
    expect(over.push('visible')).toBe('visible');
    // at exactly 4 KB it is still held: the next delta is payload until the terminator
    const edge = new StreamSanitizer();
    expect(edge.push(`v${open4k}`)).toBe('v');
    expect(edge.push('payload')).toBe('');
  });
});

describe('jsonText', () => {
  it('escapes DEL, C1 and bidi controls as \\uXXXX; the parsed value is unchanged', () => {
    const weird = 'a\x7fb\x80c\x85d\x9be\x9ff\u061cg\u200eh\u200fi\u202aj\u202ek\u2066l\u2069m\x1bn\x00o';
    const text = jsonText({ k: weird, list: [weird] });
    expect(text).not.toMatch(/[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
    for (const code of [
      '\\u007f',
      '\\u0080',
      '\\u0085',
      '\\u009b',
      '\\u009f',
      '\\u061c',
      '\\u200e',
      '\\u200f',
      '\\u202a',
      '\\u202e',
      '\\u2066',
      '\\u2069',
      '\\u001b',
      '\\u0000',
    ])
      expect(text).toContain(code);
    expect(JSON.parse(text)).toEqual({ k: weird, list: [weird] });
  });

  it('indents like JSON.stringify and keeps ordinary text', () => {
    expect(jsonText({ a: 'é → x' }, 2)).toBe('{\n  "a": "é → x"\n}');
    expect(jsonText(undefined)).toBe('null');
  });
});

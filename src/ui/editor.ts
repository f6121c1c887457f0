/**
 * The input line's editing rules as a pure function over (value, cursor) so
 * they are testable without a terminal. Emacs-style keys as in readline.
 */
import type { Key } from 'ink';

export interface EditorState {
  value: string;
  cursor: number;
}

export type EditorResult =
  | { kind: 'edit'; state: EditorState }
  | { kind: 'submit'; value: string }
  | { kind: 'history'; direction: 'prev' | 'next' }
  | { kind: 'complete' }
  | { kind: 'none' };

export const emptyEditor: EditorState = { value: '', cursor: 0 };

const chars = (s: string) => [...s];

export function editLine(st: EditorState, input: string, key: Key): EditorResult {
  const cs = chars(st.value);
  const at = Math.min(st.cursor, cs.length);
  const set = (arr: string[], cursor: number): EditorResult => ({ kind: 'edit', state: { value: arr.join(''), cursor } });
  if (key.return) return { kind: 'submit', value: st.value };
  if (key.tab) return { kind: 'complete' };
  if (key.upArrow) return { kind: 'history', direction: 'prev' };
  if (key.downArrow) return { kind: 'history', direction: 'next' };
  if (key.leftArrow) return set(cs, Math.max(0, at - 1));
  if (key.rightArrow) return set(cs, Math.min(cs.length, at + 1));
  if (key.home || (key.ctrl && input === 'a')) return set(cs, 0);
  if (key.end || (key.ctrl && input === 'e')) return set(cs, cs.length);
  if (key.ctrl && input === 'u') return set(cs.slice(at), 0);
  if (key.ctrl && input === 'k') return set(cs.slice(0, at), at);
  if (key.ctrl && input === 'w') {
    let i = at;
    while (i > 0 && cs[i - 1] === ' ') i--;
    while (i > 0 && cs[i - 1] !== ' ') i--;
    return set([...cs.slice(0, i), ...cs.slice(at)], i);
  }
  // Terminals send DEL (0x7f) for Backspace; Ink reports it as `delete` on some, `backspace` on others.
  if (key.backspace || key.delete) {
    if (at === 0) return { kind: 'none' };
    return set([...cs.slice(0, at - 1), ...cs.slice(at)], at - 1);
  }
  if (key.ctrl || key.meta || key.escape) return { kind: 'none' };
  if (!input) return { kind: 'none' };
  // Ink delivers a burst of plain text as one input: "text\r" is typed-ahead
  // text plus Enter, so insert the text and submit.
  if (input.length > 1 && /[\r\n]$/.test(input)) {
    const inserted = editLine(st, input.replace(/[\r\n]+$/, ''), { ...key, return: false });
    const value = inserted.kind === 'edit' ? inserted.state.value : st.value;
    return { kind: 'submit', value };
  }
  // Pasted text may carry newlines; a prompt is one line, so they become spaces.

  const text = chars(input.replace(/\r\n|\r|\n/g, ' ').replace(/[\u0000-\u001f\u007f]/g, ''));
  if (text.length === 0) return { kind: 'none' };
  return set([...cs.slice(0, at), ...text, ...cs.slice(at)], at + text.length);
}

/** A turn of the TUI's transcript, edited: its tool calls (found, added, updated) and its streamed text. Pure. */
import { summarizeArgs } from './call-text.js';
import type { ToolCallState, ToolCallView, TurnView } from './views.js';

/** Finished states a call never leaves. */
export const FINAL: ReadonlySet<ToolCallState> = new Set(['success', 'error', 'blocked', 'limit', 'aborted']);

export function updateCall(turn: TurnView, id: string, fn: (c: ToolCallView) => ToolCallView): TurnView {
  let found = false;
  const items = turn.items.map((it) => {
    if (it.kind === 'tool' && it.call.id === id) {
      found = true;
      return { kind: 'tool' as const, call: fn(it.call) };
    }
    return it;
  });
  return found ? { ...turn, items } : turn;
}

export function hasCall(turn: TurnView, id: string): boolean {
  return turn.items.some((it) => it.kind === 'tool' && it.call.id === id);
}

export function addCall(turn: TurnView, call: ToolCallView): TurnView {
  return { ...turn, items: [...turn.items, { kind: 'tool', call }] };
}

export function newCall(id: string, name: string, args: Record<string, unknown>, state: ToolCallState): ToolCallView {
  return { id, name, args, state, summary: summarizeArgs(name, args) };
}

export function appendText(turn: TurnView, delta: string): TurnView {
  const last = turn.items[turn.items.length - 1];
  if (last && last.kind === 'text') {
    return { ...turn, items: [...turn.items.slice(0, -1), { kind: 'text', text: last.text + delta }] };
  }
  return { ...turn, items: [...turn.items, { kind: 'text', text: delta }] };
}

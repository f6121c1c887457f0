/**
 * Sub-agent events in the TUI: tool events carrying a depth belong to a
 * child of the running `agent` call; they are folded into that call's `children`
 * (an indented tree under its tool line) instead of becoming top-level tool lines.
 * Pure functions over the view model.
 */
import type { AgentEvent } from '../core/events.js';
import type { ChildCallView, ToolCallView, TurnView } from './views.js';

export type { ChildCallView } from './views.js';
import { summarizeArgs } from './call-text.js';

export type ChildToolEvent = Extract<AgentEvent, { type: 'tool_call' | 'tool_start' | 'tool_end' | 'approval' }>;

/** Not a type guard on purpose: the same event types at depth 0 are the root's own. */
export function isChildToolEvent(e: AgentEvent): boolean {
  return (e.depth ?? 0) > 0 && (e.type === 'tool_call' || e.type === 'tool_start' || e.type === 'tool_end' || e.type === 'approval');
}

const FINAL = new Set(['success', 'partial', 'error', 'blocked', 'limit', 'aborted']);

function apply(c: ChildCallView, e: ChildToolEvent, at: number): ChildCallView {
  switch (e.type) {
    case 'tool_call':
      return { ...c, args: e.args, summary: summarizeArgs(c.name, e.args) };
    case 'approval':
      return FINAL.has(c.state) ? c : { ...c, state: 'awaiting_approval' };
    case 'tool_start':
      return FINAL.has(c.state) ? c : { ...c, state: 'running', startedAt: at };
    case 'tool_end':
      return { ...c, state: e.status, durationMs: e.duration_ms, output: e.output, display: e.display };
  }
}

/** Folds one sub-agent tool event into the live turn's running `agent` call. */
export function applyChildToolEvent(turn: TurnView, e: ChildToolEvent, at: number): TurnView {
  let idx = -1;
  for (let i = turn.items.length - 1; i >= 0; i--) {
    const it = turn.items[i]!;
    // the event names the root's `agent` call it belongs to; without it, the last running one
    const ours = e.root_call_id
      ? it.kind === 'tool' && it.call.id === e.root_call_id
      : it.kind === 'tool' && it.call.name === 'agent' && !FINAL.has(it.call.state);
    if (ours) {
      idx = i;
      break;
    }
  }
  if (idx < 0) return turn;
  const parent = (turn.items[idx] as { kind: 'tool'; call: ToolCallView }).call;
  const kids = parent.children ?? [];
  const at_ = kids.findIndex((k) => k.id === e.id);
  const base: ChildCallView =
    at_ >= 0
      ? kids[at_]!
      : { id: e.id, name: e.name, args: {}, state: 'pending', summary: '', depth: e.depth ?? 1, agent_id: e.agent_id ?? '' };
  const next = apply(e.type === 'tool_call' && at_ < 0 ? { ...base, args: e.args, summary: summarizeArgs(e.name, e.args) } : base, e, at);
  const children = at_ >= 0 ? kids.map((k, i) => (i === at_ ? next : k)) : [...kids, next];
  const items = turn.items.map((it, i) => (i === idx ? { kind: 'tool' as const, call: { ...parent, children } } : it));
  return { ...turn, items };
}

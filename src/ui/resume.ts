/**
 * A resumed session's earlier conversation as finished turns, so `--continue`
 * and /sessions show where the talk left off (printed once into <Static>).
 */
import type { TranscriptEntry } from '../sessions/transcript.js';
import type { ToolStatus } from '../core/events.js';
import type { TurnView } from './state.js';
import { summarizeArgs } from './call-text.js';

const STATUSES: readonly string[] = ['success', 'partial', 'error', 'blocked', 'limit', 'aborted'];

export function turnsFromTranscript(entries: TranscriptEntry[], maxTurns = 10): { turns: TurnView[]; omitted: number } {
  const turns: TurnView[] = [];
  let cur: TurnView | null = null;
  for (const e of entries) {
    if (e.role === 'user') {
      cur = { id: -(turns.length + 1), prompt: e.content, items: [], startedAt: 0 };
      turns.push(cur);
      continue;
    }
    if (!cur) continue;
    if (e.role === 'assistant') {
      if (e.content.trim()) cur.items.push({ kind: 'text', text: e.content });
      for (const c of e.tool_calls ?? []) {
        const args = (c.args && typeof c.args === 'object' ? c.args : {}) as Record<string, unknown>;
        cur.items.push({ kind: 'tool', call: { id: c.id, name: c.name, args, summary: summarizeArgs(c.name, args), state: 'success' } });
      }
    } else if (e.role === 'tool') {
      const item = cur.items.find((it) => it.kind === 'tool' && it.call.id === e.tool_call_id);
      if (item && item.kind === 'tool') {
        const status = (STATUSES.includes(e.status ?? '') ? e.status : 'success') as ToolStatus;
        item.call = { ...item.call, state: status, output: e.content };
      }
    }
  }
  const omitted = Math.max(0, turns.length - maxTurns);
  return { turns: turns.slice(omitted), omitted };
}

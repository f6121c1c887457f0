/**
 * The tool calls of one model response, made safe to run: every call gets an id, and
 * one the response already used gets its own (`<id>~dup<n>`), so each call has its
 * own result and event; invalid JSON arguments still become a call (its result says
 * so); oversized arguments are bounded.
 */
import type { AIMessageChunk } from '@langchain/core/messages';
import { INVALID_ARGS_KEY } from '../tools/gate.js';
import { boundToolArgs } from '../tools/input-limits.js';
import { DUP_MARK, type ToolCall } from './history.js';

export function normaliseToolCalls(chunk: Pick<AIMessageChunk, 'tool_calls' | 'invalid_tool_calls'>, now = Date.now()): ToolCall[] {
  const raw: ToolCall[] = (chunk.tool_calls ?? []).map((c, i) => ({
    id: c.id || `call_${now.toString(36)}_${i}`,
    name: c.name,
    args: boundToolArgs((c.args ?? {}) as Record<string, unknown>),
  }));
  for (const [i, c] of (chunk.invalid_tool_calls ?? []).entries())
    raw.push({ id: c.id || `call_invalid_${i}`, name: c.name ?? 'unknown', args: boundToolArgs({ [INVALID_ARGS_KEY]: c.args ?? '' }) });
  const used = new Set<string>();
  return raw.map((c) => {
    let id = c.id;
    for (let n = 2; used.has(id); n++) id = `${c.id}${DUP_MARK}${n}`;
    used.add(id);
    return id === c.id ? c : { ...c, id };
  });
}

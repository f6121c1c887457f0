/**
 * Reading and answering the tool calls in a conversation's history: the calls still
 * without a result, and the ToolMessage that answers one.
 */
import { ToolMessage, type AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ToolResult } from '../tools/registry.js';
import { redact } from '../security/redact.js';

export type ToolCall = { id: string; name: string; args: Record<string, unknown> };

export function lastAi(messages: BaseMessage[]): AIMessage | undefined {
  const m = messages[messages.length - 1];
  return m && m.getType() === 'ai' ? (m as AIMessage) : undefined;
}

/** Tool calls of the last AI message that have no ToolMessage yet. */
export function danglingToolCalls(messages: BaseMessage[]): ToolCall[] {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.getType() === 'tool') continue;
    if (m.getType() !== 'ai') return [];
    const calls = ((m as AIMessage).tool_calls ?? []) as ToolCall[];
    const answered = new Set(messages.slice(i + 1).map((t) => (t as ToolMessage).tool_call_id));
    return calls.filter((c) => !answered.has(c.id));
  }
  return [];
}

export function toolMessage(call: { id: string; name: string }, r: ToolResult): ToolMessage {
  return new ToolMessage({
    content: redact(r.output),
    tool_call_id: call.id,
    name: call.name,
    status: r.status === 'success' || r.status === 'partial' ? 'success' : 'error',
    additional_kwargs: { copilot_status: r.status },
  });
}

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

/** Marks the id of a call whose id the response had already used (./tool-calls.ts): `<id>~dup<n>`. */
export const DUP_MARK = '~dup';
const DUP = /^(.+)~dup\d+$/;

/** Said in the result of a renamed call, so the model learns the ids it reused. */
export function reusedIdNote(id: string): string | undefined {
  const orig = DUP.exec(id)?.[1];
  return orig === undefined
    ? undefined
    : `Note: your response used the tool call id "${orig}" for more than one call; this call was given the id "${id}". Use a distinct id per call.`;
}

export function toolMessage(call: { id: string; name: string }, r: ToolResult): ToolMessage {
  const note = reusedIdNote(call.id);
  return new ToolMessage({
    content: redact(note ? `${note}\n${r.output}` : r.output),
    tool_call_id: call.id,
    name: call.name,
    status: r.status === 'success' || r.status === 'partial' ? 'success' : 'error',
    // the display line goes with the result, so a transcript shows it (sessions show/export)
    additional_kwargs: {
      copilot_status: r.status,
      ...(r.display ? { copilot_display: r.display } : {}),
      ...(r.verification ? { copilot_verification: r.verification } : {}),
    },
  });
}

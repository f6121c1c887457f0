/** How the messages of a stored history read: their text, and the mark of the task protocol's notes. */
import type { BaseMessage } from '@langchain/core/messages';

/**
 * The name that marks a note of the task protocol (src/agent/tree/protocol-notes.ts) among
 * the human messages: transcripts show it as the protocol's, not the user's.
 */
export const PROTOCOL_NAME = 'task_protocol';

/** A message's text, its tool calls included (name and arguments), as the token counter and the transcripts read it. */
export function messageText(m: BaseMessage): string {
  const c = m.content as unknown;
  let text = '';
  if (typeof c === 'string') text = c;
  else if (Array.isArray(c)) text = c.map((p: unknown) => (typeof p === 'string' ? p : ((p as { text?: string }).text ?? ''))).join('');
  const calls = (m as { tool_calls?: { name: string; args: unknown }[] }).tool_calls;
  if (calls?.length) text += calls.map((tc) => tc.name + JSON.stringify(tc.args)).join('');
  return text;
}

/**
 * Messages the task protocol itself puts in an agent's history: an answer held by the
 * review gate, or the root Validator's findings on a candidate answer. They are human
 * messages (the model reads them like a tool result and goes on) marked by name and
 * `copilot_protocol`, so transcripts show them as the protocol's, not the user's.
 */
import { HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { PROTOCOL_NAME } from '../../sessions/message-text.js';

export type ProtocolNoteKind = 'review_gate' | 'root_validation' | 'lab_drift';

export function protocolNote(kind: ProtocolNoteKind, text: string): HumanMessage {
  return new HumanMessage({ content: text, name: PROTOCOL_NAME, additional_kwargs: { copilot_protocol: kind } });
}

export function isProtocolNote(m: BaseMessage | undefined): boolean {
  return m?.getType() === 'human' && m.name === PROTOCOL_NAME;
}

/** The held answer's note: which reports await review, and what to do. */
export function reviewGateNote(pending: readonly string[]): HumanMessage {
  return protocolNote(
    'review_gate',
    `[task protocol] Your answer was not accepted: the reports of these sub-agents await your review: ${pending.join(', ')}. Call review_task {agent_id, decision: accept|revise|replan|split, note} for each, then answer.`,
  );
}

/** The root Validator's findings on a candidate answer that goes back to the root. */
export function rootValidationNote(text: string): HumanMessage {
  return protocolNote('root_validation', text);
}

/**
 * The messages reducer with an O(new) path for what the graph does at every
 * step: append messages with new ids. LangGraph's messagesStateReducer rebuilds
 * an id map over the whole history on every write (two to five per turn), which
 * makes a turn's cost grow with the session. Here the ids of a result array are
 * remembered (and handed on to the next result), so an append only looks up the
 * new messages; anything else — replacing or removing by id, chunks, message-like
 * objects — goes to LangGraph's reducer unchanged.
 */
import { randomUUID } from 'node:crypto';
import { messagesStateReducer } from '@langchain/langgraph';
import { AIMessageChunk, BaseMessage, BaseMessageChunk, RemoveMessage } from '@langchain/core/messages';

type Messages = Parameters<typeof messagesStateReducer>[0];

/** ids of each array this reducer returned; moved to the next result, so each set has one owner */
const idsOf = new WeakMap<BaseMessage[], Set<string>>();

export function appendMessagesReducer(left: Messages, right: Messages): BaseMessage[] {
  if (!Array.isArray(left)) return messagesStateReducer(left, right);
  const add = Array.isArray(right) ? right : [right];
  const plain = add.every((m) => BaseMessage.isInstance(m) && !BaseMessageChunk.isInstance(m) && !(m instanceof AIMessageChunk) && !RemoveMessage.isInstance(m));
  if (!plain) return messagesStateReducer(left, right);
  const prev = left as BaseMessage[];
  let ids = idsOf.get(prev);
  if (!ids) {
    if (prev.some((m) => !BaseMessage.isInstance(m) || BaseMessageChunk.isInstance(m) || m.id == null)) return messagesStateReducer(left, right);
    ids = new Set(prev.map((m) => m.id!));
  }
  const fresh = add as BaseMessage[];
  const seen = new Set<string>();
  for (const m of fresh) {
    if (m.id != null && (ids.has(m.id) || seen.has(m.id))) return messagesStateReducer(left, right); // a replacement
    if (m.id != null) seen.add(m.id);
  }
  for (const m of fresh) {
    if (m.id == null) {
      m.id = randomUUID();
      m.lc_kwargs.id = m.id;
    }
    ids.add(m.id);
  }
  const out = prev.concat(fresh);
  idsOf.delete(prev);
  idsOf.set(out, ids);
  return out;
}

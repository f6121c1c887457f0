/**
 * The messages reducer with an O(new) path for what the graph does at every
 * step: append messages with new ids. LangGraph's messagesStateReducer rebuilds
 * an id map over the whole history on every write (several per turn), which
 * makes a turn's cost grow with the session. Here arrays that grew from one
 * another share one id → position index, so an append only looks up the new
 * messages (membership is exact: the index is checked against the array itself).
 * Anything else — replacing or removing by id, chunks, message-like objects —
 * goes to LangGraph's reducer unchanged.
 */
import { randomUUID } from 'node:crypto';
import { messagesStateReducer } from '@langchain/langgraph';
import { BaseMessage, BaseMessageChunk, RemoveMessage } from '@langchain/core/messages';

type Messages = Parameters<typeof messagesStateReducer>[0];

const indexOf = new WeakMap<BaseMessage[], Map<string, number>>();
const plainMessage = (m: unknown): m is BaseMessage =>
  BaseMessage.isInstance(m) && !BaseMessageChunk.isInstance(m) && !RemoveMessage.isInstance(m);

export function appendMessagesReducer(left: Messages, right: Messages): BaseMessage[] {
  if (!Array.isArray(left)) return messagesStateReducer(left, right);
  const add = Array.isArray(right) ? right : [right];
  if (!add.every(plainMessage)) return messagesStateReducer(left, right);
  const prev = left as BaseMessage[];
  let index = indexOf.get(prev);
  if (!index) {
    if (!prev.every((m) => plainMessage(m) && m.id != null)) return messagesStateReducer(left, right);
    index = new Map(prev.map((m, i) => [m.id!, i]));
  }
  const idx = index;
  const has = (id: string) => {
    const at = idx.get(id);
    return at !== undefined && prev[at]?.id === id;
  };
  const seen = new Set<string>();
  for (const m of add) {
    if (m.id == null) continue;
    // a replacement, a repeat within this write, or an id placed elsewhere by another branch
    if (has(m.id) || seen.has(m.id) || (idx.has(m.id) && idx.get(m.id) !== prev.length + add.indexOf(m)))
      return messagesStateReducer(left, right);
    seen.add(m.id);
  }
  add.forEach((m, i) => {
    if (m.id == null) {
      m.id = randomUUID();
      m.lc_kwargs.id = m.id;
    }
    idx.set(m.id, prev.length + i);
  });
  const out = prev.concat(add);
  indexOf.set(prev, idx);
  indexOf.set(out, idx);
  return out;
}

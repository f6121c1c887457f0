/**
 * After a run killed mid-turn is repaired on resume, the session row catches up
 * with what the interrupted run never recorded: its message count and, for a
 * first turn, a title from the first words of the question.
 */
import type { BaseMessage } from '@langchain/core/messages';
import { messageText } from './message-text.js';
import { fallbackTitle, type SessionStore } from './store.js';

export function recordRepair(store: SessionStore, sessionId: string, messages: BaseMessage[]): void {
  const row = store.get(sessionId);
  if (!row) return;
  store.db.prepare('UPDATE sessions SET message_count = ? WHERE id = ?').run(messages.length, sessionId);
  if (!row.title) {
    const first = messages.find((m) => m.getType() === 'human');
    store.setTitle(sessionId, fallbackTitle(first ? messageText(first) : ''));
  }
}

/** The messages reducer: O(new) appends, LangGraph's semantics for everything else. */
import { describe, expect, it } from 'vitest';
import { AIMessage, AIMessageChunk, HumanMessage, RemoveMessage } from '@langchain/core/messages';
import { messagesStateReducer } from '@langchain/langgraph';
import { appendMessagesReducer } from '../../src/agent/append-reducer.js';

describe('appendMessagesReducer', () => {
  it('appends with ids, and agrees with messagesStateReducer on replace, remove and chunks', () => {
    let s = appendMessagesReducer([], [new HumanMessage('one')]);
    s = appendMessagesReducer(s, [new AIMessage({ content: 'two', id: 'a2' })]);
    const kept = s;
    s = appendMessagesReducer(s, new HumanMessage('three'));
    expect(s.map((m) => m.content)).toEqual(['one', 'two', 'three']);
    expect(s.every((m) => typeof m.id === 'string')).toBe(true);
    expect(kept).toHaveLength(2); // earlier results are never mutated

    const replaced = appendMessagesReducer(s, [new AIMessage({ content: 'TWO', id: 'a2' })]);
    expect(replaced.map((m) => m.content)).toEqual(
      messagesStateReducer(s, [new AIMessage({ content: 'TWO', id: 'a2' })]).map((m) => m.content),
    );
    expect(replaced.map((m) => m.content)).toEqual(['one', 'TWO', 'three']);
    // an older array used again still knows its own ids
    expect(appendMessagesReducer(kept, [new AIMessage({ content: 'x', id: 'a2' })]).map((m) => m.content)).toEqual(['one', 'x']);

    const removed = appendMessagesReducer(replaced, [new RemoveMessage({ id: 'a2' })]);
    expect(removed.map((m) => m.content)).toEqual(['one', 'three']);
    const chunk = appendMessagesReducer(removed, [new AIMessageChunk({ content: 'c', id: 'c1' })]);
    expect(chunk.at(-1)!.getType()).toBe('ai');
    expect(chunk.at(-1)).toBeInstanceOf(AIMessage);
    // two new messages with one id in a single write: the later one wins, as in LangGraph
    const dup = appendMessagesReducer(chunk, [new HumanMessage({ content: 'p', id: 'd' }), new HumanMessage({ content: 'q', id: 'd' })]);
    expect(dup.map((m) => m.content)).toEqual(
      messagesStateReducer(chunk, [new HumanMessage({ content: 'p', id: 'd' }), new HumanMessage({ content: 'q', id: 'd' })]).map(
        (m) => m.content,
      ),
    );
  });
});

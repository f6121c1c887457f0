/**
 * Title and history-summary calls are LLM calls of the tree like any other: reserved
 * before and booked after in the recursive tree's budget (real graph, real SQLite,
 * fake LLM over HTTP). The ledger is checked against what the fake LLM was sent.
 */
import { describe, expect, it } from 'vitest';
import type { FakeLlm, FakeTurn } from '../../fakes/llm/server.js';
import { collect, ofType, session, showCall, testSettings, testTools, useFakeLlm, type ToolLog } from '../helpers.js';
import { review } from './helpers.js';

const { tmp, startLlm } = useFakeLlm('gc-tree-aux-');
const filler = (n: number) => 'lorem ipsum dolor sit amet '.repeat(n);
const delegate = (id: string, goal: string): FakeTurn => ({ tool_calls: [{ id, name: 'agent', args: { task_brief: { goal } } }] });
const purposes = (l: FakeLlm) => l.requests.map((r) => r.purpose ?? 'chat');
const count = (l: FakeLlm, p: string) => purposes(l).filter((x) => x === p).length;

describe('title and summary calls in the tree budget', () => {
  it('every request the fake LLM got is one booked call: chat, Validator, title and summaries', async () => {
    // a 2K context: the root's later requests summarize its history
    const rounds = 5;
    const llm = await startLlm(
      [
        delegate('a', 'check R1'),
        { tool_calls: [showCall('R1', 's1')] },
        { text: 'R1 checked.' },
        review('a'),
        { text: `The child checked R1. ${filler(40)}` },
        ...Array.from({ length: rounds }, (_, i) => ({ text: `answer ${i} ${filler(40)}` })),
      ],
      { summary: 'FAKE-SUMMARY' },
    );
    const log: ToolLog = { calls: [] };
    const s = await session(testSettings(llm.url, tmp.dir, { context_limit: 2 }), testTools(log), { env: { AGENT_MODE: 'recursive' } });
    await collect(s.send('verify the lab'));
    for (let i = 0; i < rounds; i++) await collect(s.send(`question ${i} ${filler(15)}`));
    expect(count(llm, 'title')).toBe(1);
    expect(count(llm, 'summary')).toBeGreaterThan(0);
    expect(count(llm, 'validator')).toBe(1);
    expect(s.usage()).toMatchObject({ llm_calls: llm.requests.length, exhausted: null });
    // tokens of the auxiliary calls are booked too: more than the chat calls' own
    const chatTokens = s.tree().agents.reduce((n, a) => n + a.input_tokens + a.output_tokens, 0);
    expect(s.usage()!.tokens).toBeGreaterThan(chatTokens);
    await s.close();
  }, 60_000);

  it('a budget that ran out leaves no call for a title: the fallback title is used and the ledger stays within the budget', async () => {
    const llm = await startLlm([
      delegate('a', 'check R1'),
      { tool_calls: [showCall('R1', 's1')] },
      { text: 'Final answer with what I have.' },
    ]);
    const log: ToolLog = { calls: [] };
    const s = await session(testSettings(llm.url, tmp.dir), testTools(log), {
      env: { AGENT_MODE: 'recursive', AGENT_MAX_LLM_CALLS: '3', AGENT_RESERVED_FINAL_CALLS: '1' },
    });
    const ev = await collect(s.send('verify the lab please'));
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('budget');
    expect(count(llm, 'title')).toBe(0);
    expect(s.info()!.title).toBe('verify the lab please');
    expect(s.usage()).toMatchObject({ llm_calls: llm.requests.length, exhausted: 'llm_calls' });
    expect(llm.requests.length).toBeLessThanOrEqual(3);
    await s.close();
  });

  it('a summary needing a call the budget does not have is skipped: the history is dropped instead, no call past the budget', async () => {
    const llm = await startLlm(
      Array.from({ length: 6 }, (_, i) => ({ text: `answer ${i} ${filler(40)}` })),
      { summary: 'FAKE-SUMMARY' },
    );
    const s = await session(testSettings(llm.url, tmp.dir, { context_limit: 2 }), [], {
      env: { AGENT_MODE: 'recursive', AGENT_MAX_LLM_CALLS: '4', AGENT_RESERVED_FINAL_CALLS: '1' },
    });
    for (let i = 0; i < 6; i++) await collect(s.send(`question ${i} ${filler(15)}`));
    expect(llm.requests.length).toBeLessThanOrEqual(4);
    expect(s.usage()!.llm_calls).toBe(llm.requests.length);
    await s.close();
  }, 60_000);
});

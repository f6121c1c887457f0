/** Context window: trimming per strategy, pairs intact, summary, context_limit, topology injection. */
import { describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { FakeLlm } from '../fakes/llm/server.js';
import { collect, fakeProject, ofType, session, showCall, testSettings, testTools, text, useFakeLlm } from './helpers.js';
import { prepareContext, STRATEGY_RATIO, type ContextStrategy } from '../../src/agent/context.js';
import { TokenCounter } from '../../src/agent/tokens.js';
import { resolveContextLimitK } from '../../src/agent/providers.js';
import { PromptLibrary, NO_TOPOLOGY } from '../../src/agent/prompts.js';
import { UsageError } from '../../src/errors.js';
import { renderPromptTopology } from '../../src/gns3/render.js';
import type { Topology } from '../../src/gns3/types.js';
import { topologyNode } from '../helpers/topology.js';
import type { AgentEvent } from '../../src/core/events.js';

const { tmp, startLlm } = useFakeLlm('gc-context-');
let llm: FakeLlm | undefined;

const filler = (n: number) => Array.from({ length: n }, (_, i) => `word${i % 50}`).join(' ');

/** 10 turns: human, AI tool call, 2 tool results, AI answer — ~200 tokens each message. */
function history(turns = 10): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (let t = 0; t < turns; t++) {
    out.push(new HumanMessage({ content: `question ${t} ${filler(150)}`, id: `h${t}` }));
    out.push(
      new AIMessage({
        content: '',
        id: `a${t}`,
        tool_calls: [
          { id: `t${t}a`, name: 'x', args: {} },
          { id: `t${t}b`, name: 'x', args: {} },
        ],
      }),
    );
    out.push(new ToolMessage({ content: filler(200), tool_call_id: `t${t}a`, id: `ta${t}` }));
    out.push(new ToolMessage({ content: filler(200), tool_call_id: `t${t}b`, id: `tb${t}` }));
    out.push(new AIMessage({ content: `answer ${t} ${filler(100)}`, id: `r${t}` }));
  }
  out.push(new HumanMessage({ content: 'the latest question', id: 'latest' }));
  return out;
}

function assertPairsIntact(msgs: BaseMessage[]): void {
  const callIds = new Set<string>();
  for (const m of msgs) {
    if (m.getType() === 'ai') for (const c of (m as AIMessage).tool_calls ?? []) callIds.add(c.id!);
    if (m.getType() === 'tool') expect(callIds.has((m as ToolMessage).tool_call_id)).toBe(true);
  }
  // and every tool call that is present has all its results
  for (const [i, m] of msgs.entries()) {
    if (m.getType() !== 'ai') continue;
    const ids = ((m as AIMessage).tool_calls ?? []).map((c) => c.id);
    const following = msgs.slice(i + 1, i + 1 + ids.length).map((t) => (t as ToolMessage).tool_call_id);
    expect(following).toEqual(ids);
  }
}

describe('context trimming', () => {
  it.each(['conservative', 'balanced', 'aggressive'] as ContextStrategy[])(
    '%s keeps system, the latest user message and tool pairs',
    async (strategy) => {
      const counter = await TokenCounter.create('cl100k_base');
      const h = history();
      const plan = await prepareContext({ system: 'SYS', history: h, summary: null, toolsTokens: 300 }, { limitK: 4, strategy, counter });
      expect(plan.budget).toBe(Math.floor(4000 * STRATEGY_RATIO[strategy]) - 300);
      expect(plan.trimmed).toBeGreaterThan(0);
      expect(plan.tokens).toBeLessThanOrEqual(plan.budget);
      expect(plan.system).toBe('SYS');
      expect(plan.messages.at(-1)!.id).toBe('latest');
      assertPairsIntact(plan.messages);
      // oldest dropped first: what is kept is a suffix of the history
      const firstKept = h.findIndex((m) => m.id === plan.messages[0]!.id);
      expect(plan.messages.map((m) => m.id)).toEqual(h.slice(firstKept).map((m) => m.id));
      expect(plan.percent).toBeCloseTo(((plan.tokens + 300) / 4000) * 100, 0);
    },
  );

  it('a larger ratio keeps more history', async () => {
    const counter = await TokenCounter.create('cl100k_base');
    const kept = await Promise.all(
      (['conservative', 'balanced', 'aggressive'] as const).map(
        async (strategy) =>
          (await prepareContext({ system: 'S', history: history(), summary: null, toolsTokens: 0 }, { limitK: 4, strategy, counter }))
            .messages.length,
      ),
    );
    expect(kept[0]!).toBeLessThan(kept[2]!);
    expect(kept[0]!).toBeLessThanOrEqual(kept[1]!);
  });

  it('keeps the latest user message even when it alone exceeds the budget', async () => {
    const counter = await TokenCounter.create('cl100k_base');
    const h = [...history(2), new HumanMessage({ content: filler(3000), id: 'huge' })];
    const plan = await prepareContext(
      { system: 'S', history: h, summary: null, toolsTokens: 0 },
      { limitK: 1, strategy: 'balanced', counter },
    );
    expect(plan.messages.map((m) => m.id)).toEqual(['huge']);
    expect(plan.warning).toMatch(/over budget/);
  });

  it('summarizes the dropped prefix into the system message (once) when enabled', async () => {
    const counter = await TokenCounter.create('cl100k_base');
    const h = history();
    let calls = 0;
    const summarizer = async (dropped: BaseMessage[]) => {
      calls++;
      expect(dropped[0]!.id).toBe('h0');
      return 'SUMMARY: the user asked ten questions';
    };
    const plan = await prepareContext(
      { system: 'SYS', history: h, summary: null, toolsTokens: 0 },
      { limitK: 4, strategy: 'balanced', counter, summarizer },
    );
    expect(calls).toBe(1);
    expect(plan.summary).not.toBeNull();
    expect(plan.system).toContain('SUMMARY: the user asked ten questions');
    expect(plan.tokens).toBeLessThanOrEqual(plan.budget);
    // next call with the stored summary does not summarize again
    const again = await prepareContext(
      { system: 'SYS', history: h, summary: plan.summary, toolsTokens: 0 },
      { limitK: 4, strategy: 'balanced', counter, summarizer },
    );
    expect(calls).toBe(1);
    expect(again.summary).toBeNull();
    expect(again.system).toContain('SUMMARY');
    assertPairsIntact(again.messages);
  });

  it('falls back to dropping when summarizing fails', async () => {
    const counter = await TokenCounter.create('cl100k_base');
    const plan = await prepareContext(
      { system: 'S', history: history(), summary: null, toolsTokens: 0 },
      { limitK: 4, strategy: 'balanced', counter, summarizer: async () => Promise.reject(new Error('boom')) },
    );
    expect(plan.summary).toBeNull();
    expect(plan.warning).toMatch(/summarizing dropped history failed/);
    expect(plan.messages.at(-1)!.id).toBe('latest');
  });

  it('caches token counts per message', async () => {
    const counter = await TokenCounter.create('cl100k_base');
    const h = history();
    await prepareContext({ system: 'S', history: h, summary: null, toolsTokens: 0 }, { limitK: 100, strategy: 'balanced', counter });
    const misses = counter.misses;
    await prepareContext({ system: 'S', history: h, summary: null, toolsTokens: 0 }, { limitK: 100, strategy: 'balanced', counter });
    expect(counter.misses).toBe(misses);
  });
});

describe('context_limit', () => {
  it('is required for unknown models, with an error naming the setting', () => {
    expect(() => resolveContextLimitK({ model: 'my-local-model', context_limit: undefined })).toThrow(UsageError);
    expect(() => resolveContextLimitK({ model: 'my-local-model', context_limit: undefined })).toThrow(
      /context_limit is required.*--context-limit/,
    );
    expect(() => resolveContextLimitK({ model: 'x', context_limit: 0 })).toThrow(/context_limit must be an integer 1\.\.10000/);
    expect(resolveContextLimitK({ model: 'gpt-4o-mini', context_limit: undefined })).toBe(128);
    expect(resolveContextLimitK({ model: 'anything', context_limit: 8 })).toBe(8);
  });

  it('createAgentSession refuses to start without it', async () => {
    llm = await startLlm([]);
    const settings = { ...testSettings(llm.url, tmp.dir), model: 'my-local-model', context_limit: undefined };
    await expect(session(settings, [])).rejects.toThrow(/context_limit is required/);
  });

  it('emits a context event per LLM call and trims + summarizes through the graph', async () => {
    const turns = Array.from({ length: 8 }, (_, i) => ({ text: `answer ${i} ${filler(300)}` }));
    llm = await startLlm(turns, { summary: 'FAKE-SUMMARY of old turns' });
    const s = await session(testSettings(llm.url, tmp.dir, { context_limit: 2 }), []);
    let last: AgentEvent[] = [];
    for (let i = 0; i < 8; i++) last = await collect(s.send(`question ${i} ${filler(100)}`));
    const ctx = ofType(last, 'context')[0]!;
    expect(ctx.limit).toBe(2000);
    expect(ctx.trimmed).toBeGreaterThan(0);
    expect(ctx.percent).toBeLessThanOrEqual(75);
    const lastReq = llm.requests.filter((r) => r.purpose === null).at(-1)!;
    expect(String(lastReq.body.messages[0]!.content)).toContain('FAKE-SUMMARY of old turns');
    expect(lastReq.body.messages.at(-1)!.content).toContain('question 7');
    expect(llm.requests.some((r) => r.purpose === 'summary')).toBe(true);
    await s.close();
  });

  it('a "prompt too long" refusal from the provider retries once with half the budget', async () => {
    const turns = Array.from({ length: 4 }, (_, i) => ({ text: `answer ${i} ${filler(300)}` }));
    llm = await startLlm([
      ...turns,
      { error: { status: 400, code: 'context_length_exceeded', message: "This model's maximum context length is 1024 tokens" } },
      { text: 'fits now' },
    ]);
    const s = await session(testSettings(llm.url, tmp.dir, { context_limit: 4, context_summarize: false }), []);
    for (let i = 0; i < 4; i++) await collect(s.send(`question ${i} ${filler(100)}`));
    const ev = await collect(s.send('last question'));
    expect(ofType(ev, 'error')).toHaveLength(0);
    expect(text(ev)).toBe('fits now');
    const chat = llm.requests.filter((r) => r.purpose === null);
    const [refused, retried] = chat.slice(-2);
    expect(retried!.body.messages.length).toBeLessThan(refused!.body.messages.length);
    expect(retried!.body.messages.at(-1)!.content).toBe('last question');
    expect(ofType(ev, 'context')).toHaveLength(2);
    await s.close();
  });

  it('trimmed history starts on a user message, at every budget, with tool pairs intact', async () => {
    const counter = await TokenCounter.create('cl100k_base');
    const h = history();
    let trimmedPlans = 0;
    for (let scale = 0.3; scale <= 1.6; scale += 0.05) {
      const plan = await prepareContext(
        { system: 'S', history: h, summary: null, toolsTokens: 0 },
        { limitK: 4, strategy: 'balanced', counter, ratioScale: scale },
      );
      if (plan.trimmed === 0) continue;
      trimmedPlans++;
      expect(plan.messages[0]!.getType()).toBe('human');
      expect(plan.messages.at(-1)!.id).toBe('latest');
      assertPairsIntact(plan.messages);
    }
    expect(trimmedPlans).toBeGreaterThan(10);
  });

  it('through the graph: every trimmed request sends system, then a user message first', async () => {
    const rounds = 6;
    const turns = Array.from({ length: rounds }, (_, i) => [
      { tool_calls: [showCall(`R${i}`, `c${i}`)] },
      { text: `answer ${i} ${filler(80)}` },
    ]).flat();
    llm = await startLlm(turns);
    const s = await session(
      testSettings(llm.url, tmp.dir, { context_limit: 2, context_summarize: false }),
      testTools({ calls: [] }, { bigOutput: 1200 }),
    );
    let trimmed = 0;
    for (let i = 0; i < rounds; i++)
      trimmed += ofType(await collect(s.send(`question ${i} ${filler(60)}`)), 'context').filter((c) => c.trimmed > 0).length;
    expect(trimmed).toBeGreaterThan(2);
    for (const r of llm.requests.filter((x) => x.purpose === null)) {
      expect(r.body.messages[0]!.role).toBe('system');
      expect(r.body.messages[1]!.role).toBe('user');
    }
    await s.close();
  });

  it('context_summarize=false drops without a summary call', async () => {
    const turns = Array.from({ length: 6 }, (_, i) => ({ text: `answer ${i} ${filler(300)}` }));
    llm = await startLlm(turns);
    const s = await session(testSettings(llm.url, tmp.dir, { context_limit: 2, context_summarize: false }), []);
    for (let i = 0; i < 6; i++) await collect(s.send(`question ${i} ${filler(100)}`));
    expect(llm.requests.some((r) => r.purpose === 'summary')).toBe(false);
    await s.close();
  });
});

describe('topology injection and prompts', () => {
  it('uses the placeholder when there is no topology', async () => {
    llm = await startLlm([{ text: 'hi' }]);
    const s = await session(testSettings(llm.url, tmp.dir), []);
    await collect(s.send('hello'));
    expect(String(llm.requests[0]!.body.messages[0]!.content)).toContain(NO_TOPOLOGY);
    expect(String(llm.requests[0]!.body.messages[0]!.content)).not.toContain('{{topology_info}}');
    await s.close();
  });

  it('uses the placeholder when the controller cannot give a topology, and still answers', async () => {
    llm = await startLlm([{ text: 'answered without topology' }]);
    const project = { ...fakeProject(), getTopology: async () => Promise.reject(new Error('controller went away')) };
    const s = await session(testSettings(llm.url, tmp.dir), [], { projectScope: async () => project });
    const ev = await collect(s.send('hello'));
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('done');
    expect(String(llm.requests[0]!.body.messages[0]!.content)).toContain(NO_TOPOLOGY);
    await s.close();
  });

  it('refreshes the topology before every LLM call', async () => {
    const model = await startLlm([{ tool_calls: [showCall('R1')] }, { text: 'done' }]);
    llm = model;
    const topo: Topology = { project_id: 'p1', project_name: 'lab1', nodes: [], links: [] };
    // the lab changes once the model has been called: the second call must see R9
    const project = {
      ...fakeProject(),
      getTopology: async () => (model.requests.some((r) => r.purpose === null) ? { ...topo, nodes: [{ ...node('R9') }] } : topo),
    };
    const s = await session(testSettings(llm.url, tmp.dir), testTools({ calls: [] }), { projectScope: async () => project });
    const ev = await collect(s.send('look'));
    expect(ofType(ev, 'init')[0]!.project_id).toBe('p-1');
    const sys = llm.requests.filter((r) => r.purpose === null).map((r) => String(r.body.messages[0]!.content));
    expect(sys[0]).toContain(renderPromptTopology(topo, 150));
    expect(sys[1]).toContain('R9');
    await s.close();
  });

  it('reloads a prompt file when it changes', () => {
    const dir = join(tmp.dir, 'prompts');
    mkdirSync(dir, { recursive: true });
    const f = join(dir, 'teaching_assistant.md');
    writeFileSync(f, 'v1 {{topology_info}}');
    const lib = new PromptLibrary(dir);
    expect(lib.system('teaching_assistant', undefined)).toBe(`v1 ${NO_TOPOLOGY}`);
    writeFileSync(f, 'version two {{topology_info}}');
    utimesSync(f, new Date(), new Date(Date.now() + 5000));
    expect(lib.system('teaching_assistant', 'T')).toBe('version two T');
  });

  it('cuts huge tool output to tool_result_tokens with a note naming the stored whole', async () => {
    llm = await startLlm([{ tool_calls: [showCall('R1', 'big')] }, { text: 'ok' }]);
    const s = await session(testSettings(llm.url, tmp.dir), testTools({ calls: [] }, { bigOutput: 500_000 }));
    const ev = await collect(s.send('show tech'));
    const sent = llm.requests[1]!.body.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'big');
    const out = String(sent!.content);
    expect(out.length).toBeLessThan(20_000);
    expect(out).toContain('cut to fit tool_result_tokens');
    expect(out).toContain('read_context_ref {"ref_id":"big","offset":');
    // the event carries the tool's result whole, for the UI and --json
    expect(ofType(ev, 'tool_end')[0]!.output.length).toBeGreaterThan(500_000);
    await s.close();
  });
});

function node(name: string) {
  return topologyNode(name, { template_name: 'FRR' });
}

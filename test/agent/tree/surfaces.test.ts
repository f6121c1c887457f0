/** Surfaces of the task tree: --json, --stream-json, sessions show/export — real session, SQLite, fake LLM. */
import { describe, expect, it } from 'vitest';
import type { FakeLlm } from '../../fakes/llm/server.js';
import { session, showCall, captureStdout, useFakeLlm, testSettings } from '../helpers.js';
import { timedShowTool } from './helpers.js';
import { ResultBuilder } from '../../../src/output/summary.js';
import { StreamJsonPrinter } from '../../../src/output/stream-json.js';
import { TextPrinter } from '../../../src/output/text.js';
import { sessionsCommand } from '../../../src/commands/sessions.js';
import { jsonResultSchema, parseStreamJson } from '../../e2e/oneshot-schema.js';
import { SessionStore } from '../../../src/sessions/store.js';
import { TreeStore } from '../../../src/sessions/tree-store.js';

const { tmp, startLlm } = useFakeLlm('gc-tree-surf-');
let llm: FakeLlm | undefined;

describe('tree surfaces', () => {
  it('--json has agents (validation, review), resource_usage and validation; --stream-json tags every event; text, sessions show/export print the protocol', async () => {
    llm = await startLlm([
      { tool_calls: [{ id: 'a', name: 'agent', args: { task_brief: { goal: 'verify OSPF on R1' } } }] },
      { tool_calls: [showCall('R1', 's1')] },
      { text: 'R1: 2 full neighbours' },
      { tool_calls: [{ id: 'rv', name: 'review_task', args: { agent_id: '{{agent_id:a}}', decision: 'accept', note: 'holds' } }] },
      { text: 'All good: R1 has 2 full neighbours.' },
    ]);
    const settings = testSettings(llm.url, tmp.dir, { model_prices: { 'fake-model': { input: 1, output: 1 } } });
    const s = await session(settings, [timedShowTool([])], { env: { AGENT_MODE: 'recursive' } });
    const builder = new ResultBuilder('teaching_assistant');
    let lines = '';
    let textErr = '';
    const stream = new StreamJsonPrinter({ write: (t: string) => (lines += t) });
    const text = new TextPrinter({ write: () => true }, { write: (t: string) => (textErr += t) }, false);
    for await (const e of s.send('verify OSPF')) {
      builder.add(e);
      stream.event(e);
      text.event(e);
    }
    builder.setTree(s.treeView());
    const result = jsonResultSchema.parse(JSON.parse(JSON.stringify(builder.result())));
    expect(result.response).toBe('All good: R1 has 2 full neighbours.');
    expect(result.tool_calls.map((c) => c.id)).toEqual(['a', 'rv']); // the child's own call is under agents
    expect(result.agents).toHaveLength(1);
    expect(result.agents![0]).toMatchObject({
      parent_id: s.id,
      depth: 1,
      goal: 'verify OSPF on R1',
      status: 'completed',
      usage: { llm_calls: 2 },
    });
    expect((result.agents![0]!.report as { result: string }).result).toBe('R1: 2 full neighbours');
    expect(result.resource_usage).toMatchObject({ agents: 2, llm_calls: 8, exhausted: null }); // root 3 + child 2 + its Validator 1 + the root Validator 1 + the title
    expect(result.resource_usage!.cost_usd).toBeGreaterThan(0);

    const events = parseStreamJson(lines);
    expect(events.every((e) => typeof e.depth === 'number' && e.agent_id)).toBe(true);
    const childEnd = events.find((e) => e.type === 'tool_end' && e.id === 's1')!;
    expect(childEnd).toMatchObject({ depth: 1, agent_id: result.agents![0]!.id, root_call_id: 'a' }); // the root's agent call it hangs under
    expect(events.find((e) => e.type === 'tool_end' && e.id === 'a')).toMatchObject({ depth: 0, agent_id: s.id });
    // the protocol: the child's verdict, the root's review of it, the root Validator's verdict on the answer
    const childId0 = result.agents![0]!.id;
    expect(result.agents![0]).toMatchObject({ validation: { verdict: 'pass' }, review: { decision: 'accept', note: 'holds' } });
    expect(result.validation).toMatchObject({ verdict: 'pass' });
    expect(events.filter((e) => e.type === 'validation').map((e) => [e.agent_id, e.depth, e.verdict])).toEqual([
      [childId0, 1, 'pass'],
      [s.id, 0, 'pass'],
    ]);
    expect(events.filter((e) => e.type === 'review')).toEqual([
      expect.objectContaining({ agent_id: childId0, depth: 1, decision: 'accept', note: 'holds' }),
    ]);
    expect(textErr).toContain(`✓ sub-agent ${childId0.slice(0, 8)} validation pass`);
    expect(textErr).toContain(`sub-agent ${childId0.slice(0, 8)} review: accept — holds`);
    expect(textErr).toContain('✓ answer validation pass');
    await s.close();

    const show = await captureStdout(() => sessionsCommand('show', [s.id.slice(0, 8)], {}, settings));
    expect(show).toContain('## Task tree');
    expect(show).toMatch(/agents 2\/50 · llm 8\/150/);
    expect(show).toMatch(/└ \[1\] [0-9a-f]{8} completed — verify OSPF on R1/);
    expect(show).toContain('report: R1: 2 full neighbours');
    expect(show).toContain('✓ validation pass');
    expect(show).toContain('review: accept — holds');
    expect(show).toMatch(/✓ root answer validation pass: .*\n```/);
    const exported = JSON.parse(await captureStdout(() => sessionsCommand('export', [s.id], { format: 'json' }, settings))) as {
      tree: { agents: { review: unknown; validation: unknown }[]; validation: unknown };
    };
    expect(exported.tree.agents).toHaveLength(1);
    expect(exported.tree.agents[0]).toMatchObject({ review: { decision: 'accept', note: 'holds' }, validation: { verdict: 'pass' } });
    expect(exported.tree.validation).toMatchObject({ verdict: 'pass' });

    // deleting the session deletes its tree and the children's threads
    const childId = result.agents![0]!.id;
    const before = await SessionStore.open(tmp.dir);
    expect((await before.messages(childId)).length).toBeGreaterThan(0);
    before.close();
    await captureStdout(() => sessionsCommand('delete', [s.id], { yes: true }, settings));
    const store = await SessionStore.open(tmp.dir);
    const trees = new TreeStore(store.db);
    expect(trees.get(s.id)).toBeUndefined();
    expect(trees.nodes(s.id)).toEqual([]);
    expect(await store.messages(childId)).toEqual([]);
    store.close();
  });
});

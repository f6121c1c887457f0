/** `--fork` of a recursive session: the tree comes along under new ids and goes on from the copied usage. */
import { describe, expect, it } from 'vitest';
import type { FakeLlm, FakeTurn } from '../../fakes/llm/server.js';
import { collect, session, showCall, useFakeLlm, testSettings, testTools } from '../helpers.js';
import { review } from './helpers.js';

const { tmp, startLlm } = useFakeLlm('gc-tree-fork-');
let llm: FakeLlm | undefined;
const env = { AGENT_MODE: 'recursive' };
const delegate = (id: string, goal: string): FakeTurn => ({ tool_calls: [{ id, name: 'agent', args: { task_brief: { goal } } }] });

describe('fork of a recursive session', () => {
  it('copies the tree, the children and their threads under new ids; the fork resumes and continues the tree', async () => {
    llm = await startLlm([
      delegate('a1', 'FIRST-GOAL check R1'),
      { tool_calls: [showCall('R1', 's1')] },
      { text: 'R1 fine' },
      review('a1'),
      { text: 'root one' },
      delegate('a2', 'SECOND-GOAL check R2'),
      { text: 'R2 fine' },
      review('a2'),
      { text: 'root two' },
    ]);
    const settings = testSettings(llm.url, tmp.dir);
    const s = await session(settings, testTools({ calls: [] }), { env });
    await collect(s.send('check the routers'));
    const original = s.tree();
    const usage = s.usage()!;
    await s.close();
    expect(original.agents).toHaveLength(1);

    const f = await session(settings, testTools({ calls: [] }), { sessionId: s.id, fork: true, env: {} });
    expect(f.id).not.toBe(s.id);
    expect(f.agentMode).toBe('recursive');
    const copied = f.tree();
    expect(copied.root).toMatchObject({ root_id: f.id, agent_mode: 'recursive', anchor: 'check the routers' });
    expect(copied.agents).toHaveLength(1);
    const child = copied.agents[0]!;
    expect(child.id).not.toBe(original.agents[0]!.id);
    expect(child).toMatchObject({ root_id: f.id, parent_id: f.id, goal: 'FIRST-GOAL check R1', status: 'completed' });
    expect(child.report).toContain(child.id);
    expect(child.report).not.toContain(original.agents[0]!.id);
    expect(f.usage()).toMatchObject({ agents: usage.agents, llm_calls: usage.llm_calls, tokens: usage.tokens });

    const ev = await collect(f.send('and R2'));
    expect(ev.at(-1)).toMatchObject({ type: 'done', stopped_reason: 'done' });
    const after = f.tree().agents;
    expect(after.map((a) => a.goal)).toEqual(['FIRST-GOAL check R1', 'SECOND-GOAL check R2']);
    // the fork's budget goes on from the copied usage
    expect(f.usage()!.llm_calls).toBe(usage.llm_calls + 6); // root 3, child 1, its Validator 1, the root Validator 1
    expect(f.usage()!.agents).toBe(usage.agents + 1);
    // the root's copied conversation names the fork's child, not the original's
    const rootPrompt = JSON.stringify(llm.requests.filter((r) => r.purpose === null).at(-4)!.body.messages);
    expect(rootPrompt).toContain(child.id);
    expect(rootPrompt).not.toContain(original.agents[0]!.id);
    await f.close();

    // the original is untouched
    const o = await session(settings, testTools({ calls: [] }), { sessionId: s.id, env: {} });
    expect(o.tree().agents.map((a) => a.id)).toEqual([original.agents[0]!.id]);
    expect(o.usage()!.llm_calls).toBe(usage.llm_calls);
    await o.close();
  });
});

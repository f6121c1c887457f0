/**
 * The task protocol in the TUI (ink-testing-library) over a real recursive session: real
 * graph, real SQLite, fake LLM over HTTP. The transcript says each verdict and review as it
 * happens; `/tree` lists each child with its verdict (✓ pass, ✗ fail, ? uncertain) and review,
 * and the root answer's validation on its last line — `– skipped (budget)` when the tree
 * budget ended the tree and its reserved call went to the answer.
 */
import { describe, expect, it } from 'vitest';
import { until } from './helpers/scripted-session.js';
import { mountRecursive } from './harness.js';
import { showCall, testSettings, testTools, useFakeLlm as fakeLlmFor } from '../agent/helpers.js';
import type { FakeTurn } from '../fakes/llm/server.js';

const { tmp, startLlm } = fakeLlmFor('gc-tui-tree-protocol-');

describe('/tree and the task protocol', () => {
  it("shows each child's verdict and review, and the root answer's validation last", async () => {
    const script: FakeTurn[] = [
      { tool_calls: [{ id: 'b', name: 'agent', args: { task_brief: [{ goal: 'GOOD part' }, { goal: 'BAD part' }] } }] },
      { when: 'GOOD part', tool_calls: [showCall('R1', 'g1')] },
      { when: '"g1"', text: 'R1 is fine' },
      { when: 'BAD part', text: 'R2 is fine' },
      {
        tool_calls: [
          { id: 'rv0', name: 'review_task', args: { agent_id: '{{agent_id:b#0}}', decision: 'accept', note: 'checked' } },
          { id: 'rv1', name: 'review_task', args: { agent_id: '{{agent_id:b#1}}', decision: 'replan', note: 'no evidence' } },
        ],
      },
      { text: 'TREE ANSWER: R1 is fine.' },
    ];
    // the BAD child claims R2 without a call: its Validator fails it
    const llm = await startLlm(script, {
      validator: [
        { text: JSON.stringify({ verdict: 'pass', checks: [], summary: 'R1 show output agrees' }) },
        {
          text: JSON.stringify({
            verdict: 'fail',
            checks: [{ claim: 'R2 is fine', ok: false, evidence: 'no call' }],
            summary: 'nothing shows R2',
          }),
        },
      ],
    });
    const settings = testSettings(llm.url, tmp.dir, { project: 'lab1' });
    const m = mountRecursive(settings, testTools({ calls: [] }));
    const frame = m.frame;
    const type = (line: string) => m.type(line);
    const real = () => m.session()!;
    try {
      await m.ready();
      await type('check the routers');
      await until(() => frame().includes('TREE ANSWER: R1 is fine.'), 20_000, `the root's answer\n${frame()}`);
      const [good, bad] = ['GOOD part', 'BAD part'].map((g) =>
        real()
          .tree()
          .agents.find((a) => a.goal === g)!
          .id.slice(0, 8),
      );
      // the transcript: one line per verdict and review, the answer's verdict too
      await until(() => frame().includes('✓ root answer validation pass'), 10_000, `the answer's verdict\n${frame()}`);
      const transcript = frame();
      expect(transcript).toContain(`✓ sub-agent ${good} validation pass`);
      expect(transcript).toContain(`✗ sub-agent ${bad} validation fail: nothing shows R2`);
      expect(transcript).toContain(`sub-agent ${bad} review: replan — no evidence`);
      await type('/tree');
      await until(() => frame().includes('task tree (recursive)'), 5_000, `the tree\n${frame()}`);
      const tree = frame();
      expect(tree).toMatch(new RegExp(`${good} completed — GOOD part[\\s\\S]*✓ validation pass[\\s\\S]*review: accept — checked`));
      expect(tree).toMatch(
        new RegExp(`${bad} completed — BAD part[\\s\\S]*✗ validation fail: nothing shows R2[\\s\\S]*review: replan — no evidence`),
      );
      expect(tree).toMatch(/✓ root answer validation pass/);
    } finally {
      await m.close();
    }
  }, 60_000);

  it('says the root answer was not validated when the tree budget ended the tree (– skipped (budget))', async () => {
    // root delegate, child answer, child Validator, root review = 4 of 5, the last reserved: the answer is the reserved final call
    const llm = await startLlm([
      { tool_calls: [{ id: 'a', name: 'agent', args: { task_brief: { goal: 'ONE part' } } }] },
      { when: 'ONE part', text: 'R1 is fine' },
      { tool_calls: [{ id: 'rv', name: 'review_task', args: { agent_id: '{{agent_id:a}}', decision: 'accept', note: '' } }] },
      { text: 'BUDGET ANSWER: R1 is fine.' },
    ]);
    const settings = testSettings(llm.url, tmp.dir, { project: 'lab1' });
    const m = mountRecursive(settings, testTools({ calls: [] }), { AGENT_MAX_LLM_CALLS: '5', AGENT_RESERVED_FINAL_CALLS: '1' });
    try {
      await m.ready();
      await m.type('check R1');
      await until(() => m.frame().includes('BUDGET ANSWER: R1 is fine.'), 20_000, `the root's answer\n${m.frame()}`);
      await until(() => m.frame().includes('– root answer validation skipped (budget)'), 10_000, `the skipped validation\n${m.frame()}`);
      await m.type('/tree');
      await until(() => m.frame().includes('task tree (recursive)'), 5_000, `the tree\n${m.frame()}`);
      expect(m.frame()).toMatch(/– root answer validation skipped \(budget\): the tree budget ran out/);
      expect(llm.requests.filter((r) => r.purpose === 'root_validator')).toHaveLength(0);
    } finally {
      await m.close();
    }
  }, 60_000);
});

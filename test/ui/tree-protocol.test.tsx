/**
 * The task protocol in the TUI (ink-testing-library) over a real recursive session: real
 * graph, real SQLite, fake LLM over HTTP. The transcript says each verdict and review as it
 * happens; `/tree` lists each child with its verdict (✓ pass, ✗ fail, ? uncertain) and review,
 * and the root answer's validation on its last line.
 */
import { describe, expect, it } from 'vitest';
import { render } from 'ink-testing-library';
import { App } from '../../src/ui/components/App.js';
import { stripAnsi } from '../../src/ui/style.js';
import type { UiServices, CreateSessionOptions } from '../../src/ui/services.js';
import type { AgentSessionExt } from '../../src/agent/session.js';
import { FakeServices, tuiInvocation } from './helpers/fake-services.js';
import { until } from './helpers/scripted-session.js';
import { fakeProject, session, showCall, testSettings, testTools, useFakeLlm as fakeLlmFor } from '../agent/helpers.js';
import type { FakeTurn } from '../fakes/llm/server.js';

const { tmp, startLlm } = fakeLlmFor('gc-tui-tree-protocol-');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
    let real: AgentSessionExt | undefined;
    const services = Object.assign(Object.create(new FakeServices()) as UiServices, {
      createSession: async (o: CreateSessionOptions) =>
        (real = await session(settings, testTools({ calls: [] }), {
          env: { AGENT_MODE: 'recursive' },
          approver: o.approver,
          projectScope: async () => fakeProject(),
        })),
    });
    const r = render(
      <App
        settings={settings}
        invocation={tuiInvocation()}
        services={services}
        color={false}
        onExit={() => {}}
        retryMs={150}
        flushMs={5}
      />,
    );
    const frame = () => stripAnsi(r.lastFrame() ?? '');
    const type = async (line: string) => {
      r.stdin.write(line);
      await sleep(25);
      r.stdin.write('\r');
      await sleep(25);
    };
    try {
      await until(() => real !== undefined && frame().includes('›'), 10_000, 'session ready');
      await type('check the routers');
      await until(() => frame().includes('TREE ANSWER: R1 is fine.'), 20_000, `the root's answer\n${frame()}`);
      const [good, bad] = ['GOOD part', 'BAD part'].map((g) =>
        real!
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
      r.unmount();
      await real?.close();
    }
  }, 60_000);
});

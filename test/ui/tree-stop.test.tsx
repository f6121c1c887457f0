/**
 * `/tree stop <agent_id>` in the TUI (ink-testing-library) over a real recursive session:
 * real graph, real SQLite, fake LLM over HTTP. The named sub-agent stops; its sibling and
 * the root go on to their answers.
 */
import { describe, expect, it } from 'vitest';
import { until } from './helpers/scripted-session.js';
import { mountRecursive } from './harness.js';
import { testSettings, testTools, useFakeLlm as fakeLlmFor, type ToolLog } from '../agent/helpers.js';
import { sawChildCall, slowAndFastChildren } from '../agent/tree/helpers.js';

const { tmp, startLlm } = fakeLlmFor('gc-tui-tree-stop-');

describe('/tree stop', () => {
  it('stops that sub-agent and its subtree; the sibling and the root go on', async () => {
    const { script, release } = slowAndFastChildren('Root answer: the FAST part is done.');
    const llm = await startLlm(script);
    const settings = testSettings(llm.url, tmp.dir, { project: 'lab1', child_execution_mode: 'parallel', max_parallel_children: 2 });
    const log: ToolLog = { calls: [] };
    const m = mountRecursive(settings, testTools(log));
    const frame = m.frame;
    const type = (line: string) => m.type(line);
    const real = () => m.session()!;
    try {
      await m.ready();
      await type('split the work');
      await until(() => sawChildCall(llm, 'SLOW part') && sawChildCall(llm, 'FAST part'), 20_000, 'both children calling the model');
      const slow = real()
        .tree()
        .agents.find((a) => a.goal === 'SLOW part')!;

      await type('/tree stop ffffffff');
      await until(() => frame().includes('no sub-agent "ffffffff"'), 5_000, `the refusal\n${frame()}`);

      await type(`/tree stop ${slow.id.slice(0, 8)}`);
      await until(
        () => frame().includes(`Stopped sub-agent ${slow.id.slice(0, 8)} and its sub-agents; the rest of the tree goes on`),
        5_000,
        `the stop notice\n${frame()}`,
      );
      await until(
        () =>
          real()
            .tree()
            .agents.find((a) => a.id === slow.id)!.status === 'stopped',
        10_000,
        'the sub-agent to stop',
      );
      expect(
        real()
          .tree()
          .agents.find((a) => a.goal === 'FAST part')!.status,
      ).toBe('running');
      release();
      await until(() => frame().includes('Root answer: the FAST part is done.'), 20_000, `the root's answer\n${frame()}`);
      expect(
        real()
          .tree()
          .agents.map((a) => [a.goal, a.status]),
      ).toEqual([
        ['SLOW part', 'stopped'],
        ['FAST part', 'completed'],
      ]);
      // once the turn has ended there is nothing to stop (asked until the turn's end is seen)
      for (let i = 0; i < 100 && !frame().includes('No turn is running: no sub-agent to stop'); i++) await type('/tree stop 0000');
      expect(frame()).toContain('No turn is running: no sub-agent to stop');
    } finally {
      release();
      await m.close();
    }
  }, 60_000);
});

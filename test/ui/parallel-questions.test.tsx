/**
 * Two parallel sub-agents that need the user at the same moment (recursive mode, the TUI over
 * a real session: real graph, real SQLite, fake LLM over HTTP). The user is asked one
 * question at a time: the second box appears once the first is answered, with numbers that
 * count the first answer, and both calls run.
 */
import { describe, expect, it } from 'vitest';
import { until } from './helpers/scripted-session.js';
import { mountRecursive, sleep } from './harness.js';
import { showCall, testSettings, testTools, useFakeLlm as fakeLlmFor, type ToolLog } from '../agent/helpers.js';
import { review } from '../agent/tree/helpers.js';
import type { FakeTurn } from '../fakes/llm/server.js';

const { tmp, startLlm } = fakeLlmFor('gc-tui-parallel-questions-');

/** The root splits the work into "R1 part" and "R2 part"; each child makes its `turns` in order; the root accepts both and answers. */
function twoChildren(turns: (device: 'R1' | 'R2') => FakeTurn[], answer: string, usage?: FakeTurn['usage']): FakeTurn[] {
  const child = (d: 'R1' | 'R2') => turns(d).map((t) => ({ when: `## Goal\\n${d} part`, ...t }));
  return [
    {
      tool_calls: [{ id: 'split', name: 'agent', args: { task_brief: [{ goal: 'R1 part' }, { goal: 'R2 part' }] } }],
      ...(usage ? { usage } : {}),
    },
    ...child('R1'),
    ...child('R2'),
    review('split', 'accept', { n: 2 }),
    { text: answer },
  ];
}

/** the frame as one line of words (the prompt box wraps) */
const flatFrame = (frame: string) => frame.replace(/[│╭╮╰╯─]/g, ' ').replace(/\s+/g, ' ');
const configCall = (device: string) => ({
  id: `cfg-${device}`,
  name: 'execute_multiple_device_config_commands',
  args: { device_configs: [{ device_name: device, config_commands: ['interface eth0', 'no shutdown'] }] },
});

describe('questions of parallel sub-agents', () => {
  it('approvals are asked one at a time; answering the first shows the second; both calls run', async () => {
    const llm = await startLlm(
      twoChildren((d) => [{ tool_calls: [configCall(d)] }, { text: `${d} done.` }], 'ROOT: both routers configured.'),
    );
    const settings = testSettings(llm.url, tmp.dir, {
      project: 'lab1',
      mode: 'lab',
      approve: 'ask',
      child_execution_mode: 'parallel',
      max_parallel_children: 2,
    });
    const log: ToolLog = { calls: [] };
    const m = mountRecursive(settings, testTools(log));
    const boxes = () => (m.frame().match(/Approve execute_multiple_device_config_commands\?/g) ?? []).length;
    try {
      await m.ready();
      await m.type('configure both routers');
      await until(() => boxes() === 1, 20_000, `the first approval\n${m.frame()}`);
      // both children are waiting on an answer now; only one box is shown
      // both children wait on an answer (each call's line says so), one box is shown
      const waiting = (d: string) => m.frame().includes(`${d}: interface eth0; no shutdown awaiting approval`);
      await until(() => waiting('R1') && waiting('R2'), 20_000, `both calls awaiting approval\n${m.frame()}`);
      expect(boxes()).toBe(1);
      expect(log.calls).toHaveLength(0);
      m.stdin.write('y');
      await until(() => log.calls.length === 1, 10_000, `the first call to run\n${m.frame()}`);
      const ran = (i: number) => (log.calls[i]!.args as { device_configs: { device_name: string }[] }).device_configs[0]!.device_name;
      const other = ran(0) === 'R1' ? 'R2' : 'R1';
      await until(() => boxes() === 1 && m.frame().includes(`│ ${other} `), 10_000, `the second approval, for ${other}\n${m.frame()}`);
      m.stdin.write('y');
      await until(() => m.frame().includes('ROOT: both routers configured.'), 20_000, `the root's answer\n${m.frame()}`);
      expect([ran(0), ran(1)].sort()).toEqual(['R1', 'R2']);
    } finally {
      await m.close();
    }
  }, 60_000);

  it('limit prompts are asked one at a time; the second counts the raise the first got', async () => {
    const llm = await startLlm(
      twoChildren((d) => [{ tool_calls: [showCall(d, `show-${d}`)] }, { text: `${d} checked.` }], 'ROOT: both routers checked.'),
    );
    const settings = testSettings(llm.url, tmp.dir, {
      project: 'lab1',
      max_tool_calls: 1,
      child_execution_mode: 'parallel',
      max_parallel_children: 2,
    });
    const log: ToolLog = { calls: [] };
    const m = mountRecursive(settings, testTools(log));
    const flat = () => flatFrame(m.frame());
    const question = (used: number, max: number, to: number) => `Tool call limit reached (${used}/${max}). Raise to ${to} and go on?`;
    try {
      await m.ready();
      await m.type('check both routers');
      // the split itself is the request's one tool call: both children's calls are refused together
      await until(() => flat().includes(question(1, 1, 2)), 20_000, `the first limit prompt\n${m.frame()}`);
      const called = (d: string) => m.frame().includes(`execute_multiple_device_commands ${d}: show ip route`);
      await until(() => called('R1') && called('R2'), 10_000, `both children's calls\n${m.frame()}`);
      await sleep(300); // the second call reaches the gate and waits for its turn to ask
      expect(log.calls).toHaveLength(0);
      m.stdin.write('y');
      await until(() => log.calls.length === 1, 10_000, `the first call to run\n${m.frame()}`);
      // not "1/1, raise to 2" again: the raise the first answer gave is used up by the first call
      await until(() => flat().includes(question(2, 2, 3)), 10_000, `the second limit prompt\n${m.frame()}`);
      m.stdin.write('y');
      await until(() => m.frame().includes('ROOT: both routers checked.'), 20_000, `the root's answer\n${m.frame()}`);
      expect(log.calls).toHaveLength(2);
    } finally {
      await m.close();
    }
  }, 60_000);

  it('cost prompts are asked one at a time; the second counts the raise the first got', async () => {
    const usage = { prompt_tokens: 100, completion_tokens: 5 }; // $0.05 a call at the price below
    const llm = await startLlm(twoChildren((d) => [{ text: `${d} checked.`, usage }], 'ROOT: both routers checked.', usage));
    // 0.01 USD per output token, input free: with max_tokens 10 a call's worst case is $0.10
    const settings = testSettings(llm.url, tmp.dir, {
      project: 'lab1',
      model_prices: { 'fake-model': { input: 0, output: 10_000 } },
      max_tokens: 10,
      max_cost: 0.12,
      child_execution_mode: 'parallel',
      max_parallel_children: 2,
    });
    const m = mountRecursive(settings, testTools({ calls: [] }));
    const flat = () => flatFrame(m.frame());
    const question = (spent: string, max: string, to: string) => `Cost limit reached ($${spent}/$${max}). Raise to $${to} and go on?`;
    try {
      await m.ready();
      await m.type('check both routers');
      // the split spent $0.05: neither child's first call ($0.10 at worst) fits under $0.12
      await until(() => flat().includes(question('0.05', '0.12', '0.18')), 20_000, `the first cost prompt\n${m.frame()}`);
      await sleep(300); // the other child reaches the limit too and waits for its turn to ask
      m.stdin.write('y');
      // not "$0.05/$0.12, raise to $0.18" again: the first child holds $0.10 of the $0.18
      await until(() => flat().includes(question('0.05', '0.18', '0.27')), 10_000, `the second cost prompt\n${m.frame()}`);
      m.stdin.write('y');
      for (let i = 0; i < 200 && !m.frame().includes('ROOT: both routers checked.'); i++) {
        if (flat().includes('Cost limit reached')) m.stdin.write('y');
        await sleep(50);
      }
      expect(m.frame()).toContain('ROOT: both routers checked.');
      expect(llm.requests.filter((r) => r.body.messages.some((x) => JSON.stringify(x).includes('R2 part'))).length).toBeGreaterThan(0);
    } finally {
      await m.close();
    }
  }, 60_000);
});

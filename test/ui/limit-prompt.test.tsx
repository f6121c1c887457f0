/**
 * The TUI's limit prompt (ink-testing-library) over a real session: real graph, real
 * SQLite, fake LLM over HTTP. A request that reaches --max-tool-calls asks; `y` raises the
 * limit for the running request and the refused call runs, `n` answers with what the run
 * has (warn), `a` raises it for the session too.
 */
import { describe, expect, it } from 'vitest';
import { until } from './helpers/scripted-session.js';
import { mountReal } from './harness.js';
import { session, showCall, testSettings, testTools, useFakeLlm as fakeLlmFor, type ToolLog } from '../agent/helpers.js';
import type { FakeLlm, FakeRequest } from '../fakes/llm/server.js';

const { tmp, startLlm } = fakeLlmFor('gc-tui-limit-');
const chat = (l: FakeLlm): FakeRequest[] => l.requests.filter((r) => r.purpose === null);
const three = (p: string) => [showCall('R1', `${p}1`), showCall('R2', `${p}2`), showCall('R3', `${p}3`)];

describe('TUI limit prompt', () => {
  it('y raises the limit and the run goes on; n answers with what it has; a keeps the raise for the session', async () => {
    const llm = await startLlm([
      { tool_calls: three('a') },
      { text: 'ANSWER-ONE: all three routers checked.' },
      { tool_calls: three('b') },
      { text: 'ANSWER-TWO: two of three checked.' },
      { tool_calls: three('c') },
      { text: 'ANSWER-THREE: all three again.' },
    ]);
    const settings = testSettings(llm.url, tmp.dir, { max_tool_calls: 2 });
    const log: ToolLog = { calls: [] };
    const m = mountReal(settings, (o) =>
      session(settings, testTools(log), {
        approver: o.approver,
        ...(o.limitAsker ? { limitAsker: o.limitAsker } : {}),
      }),
    );
    const frame = m.frame;
    const type = (line: string) => m.type(line);
    const real = () => m.session()!;
    const question = (used: number, max: number, to: number) =>
      `Tool call limit reached (${used}/${max}). Raise to ${to} and go on? [y] once · [a] for this session · [n] answer with what you have`;
    const flat = () =>
      frame()
        .replace(/[│╭╮╰╯─]/g, ' ')
        .replace(/\s+/g, ' ');
    try {
      await m.ready();

      // y: the third call runs under the raised limit, the model answers with tools still offered
      await type('check three routers');
      await until(() => flat().includes(question(2, 2, 3)), 10_000, `the limit prompt\n${frame()}`);
      // the batch is judged call by call before any runs: nothing ran yet
      expect(log.calls).toHaveLength(0);
      m.stdin.write('y');
      await until(() => frame().includes('ANSWER-ONE'), 10_000, `the answer\n${frame()}`);
      expect(log.calls).toHaveLength(3);
      expect(chat(llm)[1]!.body.tools?.length).toBeGreaterThan(0);
      expect(real().limits.max_tool_calls).toBe(2); // once: the session keeps its limit

      // n: as on_limit warn — the refused call gets its ToolMessage, the model answers without tools
      await until(() => !frame().includes('working…'), 5_000, 'the turn to end');
      await type('check them again');
      await until(() => flat().includes(question(2, 2, 3)), 10_000, `the second prompt\n${frame()}`);
      m.stdin.write('n');
      await until(() => frame().includes('ANSWER-TWO'), 10_000, `the wrap-up answer\n${frame()}`);
      expect(log.calls).toHaveLength(5);
      const wrapUp = chat(llm)[3]!;
      expect(wrapUp.body.tools).toBeUndefined();
      expect(JSON.stringify(wrapUp.body.messages)).toContain('Tool call limit reached (2/2)');
      expect(frame()).toContain('stopped: tool call limit reached');

      // a: raised for this request and the rest of the session
      await until(() => !frame().includes('working…'), 5_000, 'the turn to end');
      await type('and once more');
      await until(() => flat().includes(question(2, 2, 3)), 10_000, `the third prompt\n${frame()}`);
      m.stdin.write('a');
      await until(() => frame().includes('ANSWER-THREE'), 10_000, `the third answer\n${frame()}`);
      expect(log.calls).toHaveLength(8);
      expect(real().limits.max_tool_calls).toBe(3);
      await until(() => frame().includes('tools 3/3'), 5_000, `the status bar's raised limit\n${frame()}`);
    } finally {
      await m.close();
    }
  }, 60_000);
});

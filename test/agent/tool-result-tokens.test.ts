/**
 * One tool result enters the history at most `tool_result_tokens` tokens: a 60,000-line `show`
 * from a device console (a scripted telnet console behind the fake GNS3 controller, the real
 * device tool) reaches the model as its head and tail with a note naming the stored whole, and
 * the model (the fake LLM over HTTP) pages the middle with `read_context_ref` — in flat and
 * recursive sessions, and after the session is resumed. Counted with the o200k encoder.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeLlm, FakeRequest, FakeTurn } from '../fakes/llm/server.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { telnetNode } from '../fakes/gns3/nodes.js';
import { fakeConsole, type FakeConsole } from '../devices/helpers.js';
import { collect, ofType, session, testSettings, useFakeLlm } from './helpers.js';
import { executeMultipleDeviceCommands } from '../../src/tools/devices/commands.js';
import { getEncoder } from '../../src/agent/tokens.js';
import type { ToolDef } from '../../src/tools/types.js';

const { tmp, startLlm } = useFakeLlm('gc-result-tokens-');
const LINES = Array.from({ length: 60_000 }, (_, i) => `line ${String(i + 1).padStart(6, '0')} 10.${i % 250}.0.0/24 via 10.0.0.2 eth0`);
const WHOLE = LINES.join('\n');

let gns3: FakeGns3;
let con: FakeConsole;
let llm: FakeLlm | undefined;
beforeAll(async () => {
  con = await fakeConsole('R1# ', (line) =>
    line.startsWith('show big') ? LINES.join('\r\n') + '\r\n' : line.startsWith('show clock') ? '10:00\r\n' : '',
  );
  gns3 = await startFakeGns3({ api: 'v2' });
  gns3.addProject({ name: 'lab' });
  gns3.addNode(telnetNode('R1', con.port, { tags: ['device_type:cisco_ios_telnet'] }));
});
afterAll(async () => {
  await gns3?.close();
  await con?.close();
});
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

const tools = [executeMultipleDeviceCommands] as ToolDef[];
const settings = (url: string, extra: Record<string, unknown> = {}) =>
  testSettings(url, tmp.dir, { server: gns3.url, project: 'lab', command_timeout_ms: 30_000, ...extra });
const show = (id: string, commands: string[]): FakeTurn => ({
  tool_calls: [{ id, name: 'execute_multiple_device_commands', args: { device_configs: [{ device_name: 'R1', commands }] } }],
});
const read = (id: string, args: Record<string, unknown>): FakeTurn => ({ tool_calls: [{ id, name: 'read_context_ref', args }] });
const chat = (l: FakeLlm): FakeRequest[] => l.requests.filter((r) => r.purpose === null);
const toolText = (r: FakeRequest, id: string): string => {
  const c = r.body.messages.find((m) => m.role === 'tool' && m.tool_call_id === id)?.content;
  return typeof c === 'string' ? c : '';
};
const tokens = async (s: string) => (await getEncoder('o200k_base')).count(s);
interface Page {
  status: string;
  ref_id: string;
  offset: number;
  next_offset?: number;
  content: string;
}

/** The cut big output as the model read it, and its note's ref and line. */
function cutOutput(text: string): { output: string; ref: string; line: number; clock: string } {
  const parsed = JSON.parse(text) as { devices: { results: { command: string; output: string }[] }[] };
  const [big, clock] = parsed.devices[0]!.results;
  const note = /read_context_ref \{"ref_id":"([^"]+)","line":(\d+)\}/.exec(big!.output);
  expect(note).not.toBeNull();
  return { output: big!.output, ref: note![1]!, line: Number(note![2]), clock: clock?.output ?? '' };
}

/** The page read from `line` holds the whole's lines from there, nothing else. */
function expectLinesFrom(page: Page, line: number, atLeast: number): void {
  expect(page.status).toBe('success');
  const got = page.content.split('\n').filter((l) => l !== '');
  expect(got.length).toBeGreaterThanOrEqual(atLeast);
  expect(got).toEqual(LINES.slice(line - 1, line - 1 + got.length));
}

describe('tool results are cut to tool_result_tokens and paged with read_context_ref', () => {
  for (const agentMode of ['flat', 'recursive'] as const) {
    it(`${agentMode}: a 60,000-line show enters the history within 2,000 tokens with head, tail and a ref; the model reads the exact middle`, async () => {
      llm = await startLlm([
        show('big', ['show big', 'show clock']),
        read('p1', { ref_id: 'big.1', line: 30_000 }),
        show('small', ['show clock']),
        { text: 'done' },
      ]);
      const s = await session(settings(llm.url, { agent_mode: agentMode }), tools);
      const ev = await collect(s.send('show me the routes'));
      const reqs = chat(llm);
      const cut = toolText(reqs[1]!, 'big');
      expect(await tokens(cut)).toBeLessThanOrEqual(2000);
      const { output, ref, line, clock } = cutOutput(cut);
      expect(ref).toBe('big.1');
      expect(output.startsWith(`${LINES[0]}\n${LINES[1]}\n`)).toBe(true);
      expect(output.endsWith(`${LINES[59_998]}\n${LINES[59_999]}`)).toBe(true);
      expect(output).toContain(`lines ${line}–`);
      expect(output).not.toContain(LINES[30_000]);
      // the other command of the batch is untouched
      expect(clock).toBe('10:00');
      // the events carry the tool's result whole (scripts parse --json's outputs); only the history is cut
      const shown = ofType(ev, 'tool_end').find((e) => e.id === 'big')!.output;
      expect(shown).not.toContain('cut to fit tool_result_tokens');
      expect(shown).toContain(LINES[30_000]);

      const pageText = toolText(reqs[2]!, 'p1');
      expect(await tokens(pageText)).toBeLessThanOrEqual(2000);
      const page = JSON.parse(pageText) as Page;
      expectLinesFrom(page, 30_000, 20);
      expect(page.next_offset).toBe(page.offset + page.content.length);
      expect(WHOLE.slice(page.offset, page.next_offset)).toBe(page.content);

      // a result within the limit enters the history as the tool gave it
      const small = toolText(reqs[3]!, 'small');
      expect(small).not.toContain('read_context_ref');
      expect(JSON.parse(small)).toMatchObject({ status: 'success', devices: [{ results: [{ output: '10:00' }] }] });
      await s.close();
    });
  }

  it('tool_result_tokens 500: the result and each page stay within 500 tokens', async () => {
    llm = await startLlm([show('big', ['show big']), read('p4', { ref_id: 'big.1', line: 1000 }), { text: 'done' }]);
    const s = await session(settings(llm.url, { tool_result_tokens: 500 }), tools);
    await collect(s.send('show big'));
    const reqs = chat(llm);
    const cut = toolText(reqs[1]!, 'big');
    expect(await tokens(cut)).toBeLessThanOrEqual(500);
    expect(cutOutput(cut).output.startsWith(`${LINES[0]}\n`)).toBe(true);
    const pageText = toolText(reqs[2]!, 'p4');
    expect(await tokens(pageText)).toBeLessThanOrEqual(500);
    expectLinesFrom(JSON.parse(pageText) as Page, 1000, 5);
    await s.close();
  });

  it('a resumed session still reads the stored whole by its ref', async () => {
    llm = await startLlm([show('big', ['show big']), { text: 'seen' }]);
    const first = await session(settings(llm.url), tools);
    await collect(first.send('show big'));
    const id = first.id;
    await first.close();
    await llm.close();

    llm = await startLlm([read('p2', { ref_id: 'big.1', line: 59_990 }), { text: 'the last lines' }]);
    const again = await session(settings(llm.url), tools, { sessionId: id });
    await collect(again.send('read the end'));
    const page = JSON.parse(toolText(chat(llm)[1]!, 'p2')) as Page;
    expectLinesFrom(page, 59_990, 11);
    expect(page.content.endsWith(`${LINES[59_999]}`)).toBe(true);
    expect(page.next_offset).toBeUndefined();
    await again.close();
  });

  it('a ref the agent does not hold is refused, naming the ones it holds', async () => {
    llm = await startLlm([read('p3', { ref_id: 'nope' }), { text: 'no' }]);
    const s = await session(settings(llm.url), tools);
    await collect(s.send('read'));
    expect(JSON.parse(toolText(chat(llm)[1]!, 'p3'))).toEqual({
      status: 'error',
      error: 'context ref "nope" was not granted to you; you hold none',
    });
    await s.close();
  });
});

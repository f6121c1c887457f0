/**
 * Observation masking: tool results older than the last `history_full_turns` model turns, when
 * long, are sent to the LLM as stubs naming a ref; the last turns go whole, the stored history
 * stays whole, and the model reads a masked result back with `read_context_ref`. The unit part
 * works on a built message list (real o200k counter); the session part runs the real device
 * tool against a scripted telnet console behind the fake GNS3 controller, with the fake LLM
 * over HTTP recording what each call was sent.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { FakeLlm, FakeRequest, FakeTurn } from '../fakes/llm/server.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { telnetNode } from '../fakes/gns3/nodes.js';
import { fakeConsole, type FakeConsole } from '../devices/helpers.js';
import { collect, ofType, session, testSettings, useFakeLlm } from './helpers.js';
import { executeMultipleDeviceCommands } from '../../src/tools/devices/commands.js';
import { MASK_MIN_TOKENS, maskOldResults } from '../../src/agent/history-mask.js';
import { prepareContext } from '../../src/agent/context.js';
import { TokenCounter } from '../../src/agent/tokens.js';
import type { ToolDef } from '../../src/tools/types.js';

const ROUTES = Array.from({ length: 40 }, (_, i) => `O>* 10.${i}.0.0/24 [110/20] via 10.0.1.2, eth0, weight 1, 00:0${i % 10}:12`);

/** A device batch result like execute_multiple_device_commands gives. */
const batch = (device: string, command: string, output: string) =>
  JSON.stringify({
    status: 'success',
    devices: [{ device_name: device, status: 'success', results: [{ command, status: 'success', output }] }],
  });

/** `turns` model turns, each one tool call answered by a long batch; then the user's next question. */
function history(turns: number): BaseMessage[] {
  const out: BaseMessage[] = [new HumanMessage('why is OSPF down?')];
  for (let t = 1; t <= turns; t++) {
    const id = `call${t}`;
    out.push(new AIMessage({ content: '', tool_calls: [{ id, name: 'execute_multiple_device_commands', args: {} }] }));
    out.push(
      new ToolMessage({
        content: batch(`R${t}`, 'show ip route', ROUTES.join('\n')),
        tool_call_id: id,
        name: 'execute_multiple_device_commands',
      }),
    );
  }
  return out;
}

function memoryStore() {
  const refs = new Map<string, string>();
  return { refs, store: (ref: { id: string; content: string }) => (refs.set(ref.id, ref.content), ref.id) };
}

describe('maskOldResults', () => {
  let counter: TokenCounter;
  beforeAll(async () => {
    counter = await TokenCounter.create('o200k_base');
  });

  it('stubs long results older than the last 2 model turns, sends the last turns whole, stores each stubbed whole', () => {
    const h = history(4);
    const { refs, store } = memoryStore();
    const sent = maskOldResults(h, { fullTurns: 2, counter, store });
    expect(sent).toHaveLength(h.length);
    const text = (i: number) => sent[i]!.content as string;
    // turns 1 and 2 (messages 2 and 4) masked, turns 3 and 4 (6 and 8) whole
    for (const i of [2, 4]) {
      expect(text(i)).toMatch(
        /^\[older execute_multiple_device_commands result, masked \(\d+ tokens\); whole: read_context_ref \{"ref_id":"call\d"\}\]/,
      );
      expect(text(i)).toContain(`R${i / 2} \`show ip route\`: 40 lines`);
      expect(counter.text(text(i))).toBeLessThan(60);
      expect((sent[i] as ToolMessage).tool_call_id).toBe(`call${i / 2}`);
    }
    for (const i of [6, 8]) expect(sent[i]).toBe(h[i]);
    expect([...refs.keys()]).toEqual(['call1', 'call2']);
    expect(refs.get('call1')).toBe(h[2]!.content);
    // the history itself is untouched
    expect(h[2]!.content).toBe(batch('R1', 'show ip route', ROUTES.join('\n')));
  });

  it('leaves short results, and everything with history_full_turns 0 or fewer turns than it', () => {
    const h = history(3);
    const short = new ToolMessage({ content: 'ok', tool_call_id: 'call1', name: 'x' });
    h[2] = short;
    const { refs, store } = memoryStore();
    expect(counter.message(short)).toBeLessThanOrEqual(MASK_MIN_TOKENS);
    const sent = maskOldResults(h, { fullTurns: 2, counter, store });
    expect(sent[2]).toBe(short);
    expect(sent.filter((m, i) => m !== h[i])).toHaveLength(0);
    expect(maskOldResults(h, { fullTurns: 0, counter, store })).toBe(h);
    expect(maskOldResults(history(2), { fullTurns: 2, counter, store })).toEqual(history(2));
    expect(refs.size).toBe(0);
  });

  it("the tree's reports stay whole: the parent addresses its children by their agent_id", () => {
    const h = history(4);
    const report = JSON.stringify({ agent_id: 'a-1', status: 'done', summary: ROUTES.join('\n') });
    h[2] = new ToolMessage({ content: report, tool_call_id: 'call1', name: 'agent' });
    const sent = maskOldResults(h, { fullTurns: 2, counter, store: memoryStore().store });
    expect(sent[2]).toBe(h[2]);
    expect((sent[4]!.content as string).startsWith('[older')).toBe(true);
  });

  it('a result that is not a device batch keeps its first lines', () => {
    const h = history(3);
    h[2] = new ToolMessage({ content: ROUTES.join('\n'), tool_call_id: 'call1', name: 'gns3_topology_reader' });
    const sent = maskOldResults(h, { fullTurns: 1, counter, store: memoryStore().store });
    const stub = sent[2]!.content as string;
    expect(stub).toContain(`${ROUTES[0]}\n`);
    expect(stub).not.toContain(ROUTES[39]);
    expect(stub.endsWith('…')).toBe(true);
    expect((sent[4]!.content as string).startsWith('[older')).toBe(true);
    expect(sent[6]).toBe(h[6]);
  });

  it('prepareContext sends the masked history and counts it; a summary is made from the whole', async () => {
    const h = history(6);
    const { store } = memoryStore();
    const mask = (v: BaseMessage[]) => maskOldResults(v, { fullTurns: 2, counter, store });
    const whole = await prepareContext(
      { system: 'sys', history: h, summary: null, toolsTokens: 0 },
      { limitK: 128, strategy: 'balanced', counter },
    );
    const masked = await prepareContext(
      { system: 'sys', history: h, summary: null, toolsTokens: 0 },
      { limitK: 128, strategy: 'balanced', counter, mask },
    );
    expect(masked.messages).toHaveLength(h.length);
    expect(masked.tokens).toBeLessThan(whole.tokens * 0.5);
    expect((masked.messages[2]!.content as string).startsWith('[older')).toBe(true);
    expect(masked.messages.at(-1)).toBe(h.at(-1));
    // a window too small for it all: what is dropped is summarized from the whole results
    let summarized: BaseMessage[] = [];
    const small = await prepareContext(
      { system: 'sys', history: [...h, new HumanMessage('and now?')], summary: null, toolsTokens: 0 },
      {
        limitK: 1,
        strategy: 'balanced',
        counter,
        mask,
        summarizer: async (dropped) => {
          summarized = dropped;
          return 'earlier: routes read';
        },
      },
    );
    expect(small.summary?.text).toBe('earlier: routes read');
    expect(summarized.some((m) => m.getType() === 'tool' && (m.content as string).includes(ROUTES[39]!))).toBe(true);
  });
});

describe('a session sends old results as stubs and the model reads them back with read_context_ref', () => {
  const { tmp, startLlm } = useFakeLlm('gc-history-mask-');
  let gns3: FakeGns3;
  let con: FakeConsole;
  let llm: FakeLlm | undefined;
  beforeAll(async () => {
    con = await fakeConsole('R1# ', (line) =>
      line.startsWith('show ip route') ? ROUTES.join('\r\n') + '\r\n' : line.startsWith('show clock') ? '10:00\r\n' : '',
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
  const show = (id: string, command: string): FakeTurn => ({
    tool_calls: [{ id, name: 'execute_multiple_device_commands', args: { device_configs: [{ device_name: 'R1', commands: [command] }] } }],
  });
  const toolText = (r: FakeRequest, id: string): string => {
    const c = r.body.messages.find((m) => m.role === 'tool' && m.tool_call_id === id)?.content;
    return typeof c === 'string' ? c : '';
  };

  for (const agentMode of ['flat', 'recursive'] as const) {
    it(`${agentMode}: the routes read 3 turns ago go as a stub, read back whole by its ref`, async () => {
      llm = await startLlm([
        show('rib', 'show ip route'),
        show('c1', 'show clock'),
        show('c2', 'show clock'),
        { tool_calls: [{ id: 'back', name: 'read_context_ref', args: { ref_id: 'rib' } }] },
        { text: 'done' },
      ]);
      const s = await session(testSettings(llm.url, tmp.dir, { server: gns3.url, project: 'lab', agent_mode: agentMode }), tools);
      const ev = await collect(s.send('read the routes'));
      const reqs = llm.requests.filter((r) => r.purpose === null);
      expect(reqs).toHaveLength(5);
      // calls 2 and 3: the routes are among the last two turns, whole
      for (const r of [reqs[1]!, reqs[2]!]) expect(toolText(r, 'rib')).toContain(ROUTES[39]);
      // call 4: three turns later, a stub naming the ref
      const stub = toolText(reqs[3]!, 'rib');
      expect(stub).toMatch(
        /^\[older execute_multiple_device_commands result, masked \(\d+ tokens\); whole: read_context_ref \{"ref_id":"rib"\}\]\nR1 `show ip route`: 40 lines$/,
      );
      // the page read by that ref is the whole result as the history holds it
      const page = JSON.parse(toolText(reqs[4]!, 'back')) as { status: string; content: string };
      expect(page.status).toBe('success');
      expect(page.content).toContain(ROUTES[0]);
      expect(page.content).toContain(ROUTES[39]);
      expect(ofType(ev, 'tool_end').find((e) => e.id === 'back')?.output).toContain('"status":"success"');
      await s.close();
    });
  }

  it('history_full_turns 0: every result is sent whole', async () => {
    llm = await startLlm([
      show('rib', 'show ip route'),
      show('c1', 'show clock'),
      show('c2', 'show clock'),
      show('c3', 'show clock'),
      { text: 'done' },
    ]);
    const s = await session(testSettings(llm.url, tmp.dir, { server: gns3.url, project: 'lab', history_full_turns: 0 }), tools);
    await collect(s.send('read the routes'));
    const last = llm.requests.filter((r) => r.purpose === null).at(-1)!;
    expect(toolText(last, 'rib')).toContain(ROUTES[39]);
    await s.close();
  });
});

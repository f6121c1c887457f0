/** Runtime limits through the real graph, real SQLite and the fake LLM over HTTP. */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm, type FakeRequest } from '../fakes/llm/server.js';
import { collect, ofType, session, showCall, tempDir, testSettings, testTools, text, type ToolLog } from './helpers.js';
import { ResultBuilder, exitCodeOf } from '../../src/output/summary.js';
import type { AgentEvent } from '../../src/agent/events.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
let llm: FakeLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

const chatRequests = (l: FakeLlm): FakeRequest[] => l.requests.filter((r) => r.purpose === null);
const exitOf = (events: AgentEvent[]) => {
  const b = new ResultBuilder('teaching_assistant');
  events.forEach((e) => b.add(e));
  return exitCodeOf(b.result());
};

describe('limits', () => {
  it('defaults are unchanged when no flag is given', async () => {
    llm = await startFakeLlm([]);
    const s = await session(testSettings(llm.url, tmp.dir), []);
    expect(s.limits).toEqual({ max_iterations: 20, tool_limits: {}, on_limit: 'warn' });
    await s.close();
  });

  it('max_iterations=1 stops after one LLM call with a clear final message', async () => {
    llm = await startFakeLlm([{ text: 'Let me look.', tool_calls: [showCall('R1')] }, { text: 'never reached' }]);
    const log: ToolLog = { calls: [] };
    const s = await session(testSettings(llm.url, tmp.dir, { max_iterations: 1 }), testTools(log));
    const ev = await collect(s.send('check R1'));
    expect(chatRequests(llm)).toHaveLength(1);
    expect(log.calls).toHaveLength(0);
    const done = ofType(ev, 'done')[0]!;
    expect(done.stopped_reason).toBe('max_iterations');
    expect(done.stats.llm_calls).toBe(1);
    expect(text(ev)).toMatch(/iteration limit \(1 LLM call, --max-iterations 1\)/);
    expect(ofType(ev, 'tool_end')[0]).toMatchObject({ status: 'limit', name: 'execute_multiple_device_commands' });
    expect(exitOf(ev)).toBe(0);
    await s.close();
  });

  it('max_tool_calls=3 with 5 requested calls executes exactly 3 and returns the limit message for the rest', async () => {
    const five = ['R1', 'R2', 'R3', 'R4', 'R5'].map((r, i) => showCall(r, `c${i}`));
    llm = await startFakeLlm([{ tool_calls: five }]);
    const log: ToolLog = { calls: [] };
    const s = await session(testSettings(llm.url, tmp.dir, { max_tool_calls: 3 }), testTools(log));
    const ev = await collect(s.send('check all'));
    expect(log.calls).toHaveLength(3);
    const ends = ofType(ev, 'tool_end');
    expect(ends.map((e) => e.status).sort()).toEqual(['limit', 'limit', 'success', 'success', 'success']);
    for (const e of ends.filter((x) => x.status === 'limit')) expect(e.output).toContain('Tool call limit reached (3 calls)');
    // executed ones are the first three in call order
    expect(ends.filter((e) => e.status === 'success').map((e) => e.id).sort()).toEqual(['c0', 'c1', 'c2']);
    const done = ofType(ev, 'done')[0]!;
    expect(done.stopped_reason).toBe('max_tool_calls');
    expect(done.stats.tool_calls).toBe(3);
    await s.close();
  });

  it('--tool-limit caps one tool; the other calls still run', async () => {
    llm = await startFakeLlm([
      { tool_calls: [showCall('R1', 'a'), showCall('R2', 'b'), { id: 'c', name: 'get_gns3_templates', args: {} }] },
    ]);
    const log: ToolLog = { calls: [] };
    const s = await session(testSettings(llm.url, tmp.dir, { tool_limits: { execute_multiple_device_commands: 1 } }), testTools(log));
    const ev = await collect(s.send('x'));
    expect(log.calls.map((c) => c.name).sort()).toEqual(['execute_multiple_device_commands', 'get_gns3_templates']);
    const limited = ofType(ev, 'tool_end').find((e) => e.id === 'b')!;
    expect(limited.status).toBe('limit');
    expect(limited.output).toContain('execute_multiple_device_commands=1');
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('tool_limit');
    await s.close();
  });

  it('--max-time stops the loop and cancels the in-flight tool', async () => {
    llm = await startFakeLlm([{ tool_calls: [showCall('R1')] }, { text: 'never reached' }]);
    const log: ToolLog = { calls: [] };
    const s = await session(testSettings(llm.url, tmp.dir, { max_time: 1 }), testTools(log, { slowMs: 20_000 }));
    const t0 = Date.now();
    const ev = await collect(s.send('slow'));
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(ofType(ev, 'tool_end')[0]).toMatchObject({ status: 'aborted' });
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('max_time');
    expect(text(ev)).toContain('time budget of 1 s');
    expect(chatRequests(llm)).toHaveLength(1);
    await s.close();
  });

  it('--max-time also cancels a hanging LLM stream', async () => {
    llm = await startFakeLlm([{ text: 'thinking very slowly', hang: true }]);
    const s = await session(testSettings(llm.url, tmp.dir, { max_time: 1 }), testTools({ calls: [] }));
    const t0 = Date.now();
    const ev = await collect(s.send('slow model'));
    expect(Date.now() - t0).toBeLessThan(4000);
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('max_time');
    expect(ofType(ev, 'error')).toHaveLength(0);
    expect(exitOf(ev)).toBe(0);
    await s.close();
  });

  it('--on-limit continue after max_iterations: one more call without tools', async () => {
    llm = await startFakeLlm([{ tool_calls: [showCall('R1')] }, { text: 'Here is what I know so far.' }]);
    const log: ToolLog = { calls: [] };
    const s = await session(testSettings(llm.url, tmp.dir, { max_iterations: 1, on_limit: 'continue' }), testTools(log));
    const ev = await collect(s.send('x'));
    const reqs = chatRequests(llm);
    expect(reqs).toHaveLength(2);
    expect(reqs[1]!.body.tools).toBeUndefined();
    expect(String(reqs[1]!.body.messages[0]!.content)).toContain('Do not call tools');
    expect(log.calls).toHaveLength(0);
    expect(text(ev)).toContain('Here is what I know so far.');
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('max_iterations');
    await s.close();
  });

  it('--on-limit continue lets the model answer once more without tools', async () => {
    llm = await startFakeLlm([{ tool_calls: [showCall('R1', 'a'), showCall('R2', 'b')] }, { text: 'R1 is fine; R2 was not checked.' }]);
    const log: ToolLog = { calls: [] };
    const s = await session(testSettings(llm.url, tmp.dir, { max_tool_calls: 1, on_limit: 'continue' }), testTools(log));
    const ev = await collect(s.send('x'));
    const reqs = chatRequests(llm);
    expect(reqs).toHaveLength(2);
    expect(reqs[0]!.body.tools?.length).toBeGreaterThan(0);
    expect(reqs[1]!.body.tools).toBeUndefined();
    const toolMsgs = reqs[1]!.body.messages.filter((m) => m.role === 'tool');
    expect(String(toolMsgs[1]!.content)).toContain('Tool call limit reached (1 calls)');
    expect(text(ev)).toContain('R2 was not checked');
    const done = ofType(ev, 'done')[0]!;
    expect(done.stopped_reason).toBe('max_tool_calls');
    expect(exitOf(ev)).toBe(0);
    await s.close();
  });

  it('--on-limit fail reports a limit error (exit 5); warn exits 0', async () => {
    llm = await startFakeLlm([{ tool_calls: [showCall('R1'), showCall('R2')] }, { tool_calls: [showCall('R1'), showCall('R2')] }]);
    const s = await session(testSettings(llm.url, tmp.dir, { max_tool_calls: 1, on_limit: 'fail' }), testTools({ calls: [] }));
    const ev = await collect(s.send('x'));
    expect(ofType(ev, 'error')[0]!.error.type).toBe('limit');
    expect(exitOf(ev)).toBe(5);
    s.setLimits({ on_limit: 'warn' });
    const ev2 = await collect(s.send('again'));
    expect(ofType(ev2, 'error')).toHaveLength(0);
    expect(ofType(ev2, 'done')[0]!.stopped_reason).toBe('max_tool_calls');
    expect(exitOf(ev2)).toBe(0);
    await s.close();
  });

  it('limits are per request and the recursion limit never reaches the user', async () => {
    const loop = Array.from({ length: 3 }, (_, i) => ({ tool_calls: [showCall('R1', `l${i}`)] }));
    llm = await startFakeLlm([...loop, ...loop.map((t, i) => ({ tool_calls: [showCall('R1', `m${i}`)] }))]);
    const log: ToolLog = { calls: [] };
    const s = await session(testSettings(llm.url, tmp.dir, { max_iterations: 3 }), testTools(log));
    for (const prompt of ['first', 'second']) {
      const ev = await collect(s.send(prompt));
      expect(ofType(ev, 'error')).toHaveLength(0);
      const done = ofType(ev, 'done')[0]!;
      expect(done.stopped_reason).toBe('max_iterations');
      expect(done.stats.llm_calls).toBe(3);
    }
    expect(log.calls).toHaveLength(4);
    await s.close();
  });
});

describe('tool execution', () => {
  it('runs the tool calls of one LLM turn in parallel and returns results in call order', async () => {
    llm = await startFakeLlm([{ tool_calls: [showCall('R1', 'p1'), showCall('R2', 'p2'), showCall('R3', 'p3')] }, { text: 'ok' }]);
    const log: ToolLog = { calls: [] };
    const s = await session(testSettings(llm.url, tmp.dir), testTools(log, { slowMs: 400 }));
    const at: Record<string, number> = {};
    const ev = [];
    for await (const e of s.send('three at once')) {
      ev.push(e);
      if (e.type === 'tool_start' || e.type === 'tool_end') at[`${e.type}:${e.id}`] = performance.now();
    }
    expect(log.calls).toHaveLength(3);
    // all three started before the first one finished (sequential would start p2 after p1 ended)
    const firstEnd = Math.min(at['tool_end:p1']!, at['tool_end:p2']!, at['tool_end:p3']!);
    expect(Math.max(at['tool_start:p1']!, at['tool_start:p2']!, at['tool_start:p3']!)).toBeLessThan(firstEnd);
    expect(ofType(ev, 'tool_end').every((e) => e.duration_ms >= 380)).toBe(true);
    const sent = llm.requests.filter((r) => r.purpose === null)[1]!.body.messages.filter((m) => m.role === 'tool');
    expect(sent.map((m) => m.tool_call_id)).toEqual(['p1', 'p2', 'p3']);
    await s.close();
  });

  it('logs the effective limits of every request', async () => {
    llm = await startFakeLlm([{ text: 'a' }, { text: 'b' }]);
    const lines: { msg: string; data?: Record<string, unknown> }[] = [];
    const capture = { error() {}, warn() {}, debug() {}, info: (msg: string, data?: Record<string, unknown>) => void lines.push({ msg, data }) };
    const s = await session(testSettings(llm.url, tmp.dir, { max_tool_calls: 7, tool_limits: { get_gns3_templates: 2 } }), [], { log: capture });
    await collect(s.send('one'));
    s.setLimits({ max_iterations: 5 });
    await collect(s.send('two'));
    const reqs = lines.filter((l) => l.msg === 'request');
    expect(reqs).toHaveLength(2);
    expect(reqs[0]!.data!.limits).toEqual({ max_iterations: 20, max_tool_calls: 7, max_time_s: 'none', tool_limits: { get_gns3_templates: 2 }, on_limit: 'warn' });
    expect((reqs[1]!.data!.limits as { max_iterations: number }).max_iterations).toBe(5);
    await s.close();
  });
});

/** Runtime limits through the real graph, real SQLite and the fake LLM over HTTP. */
import { describe, expect, it } from 'vitest';
import type { FakeLlm, FakeRequest } from '../fakes/llm/server.js';
import { collect, ofType, session, showCall, testSettings, testTools, text, type ToolLog, useFakeLlm } from './helpers.js';
import { ResultBuilder, exitCodeOf } from '../../src/output/summary.js';
import type { AgentEvent } from '../../src/core/events.js';

const { tmp, startLlm } = useFakeLlm('gc-limits-');
let llm: FakeLlm | undefined;

const chatRequests = (l: FakeLlm): FakeRequest[] => l.requests.filter((r) => r.purpose === null);
/** The request that wrapped the turn up: the model was asked twice, with tools and then without. */
const wrapUpRequest = (l: FakeLlm): FakeRequest => {
  const reqs = chatRequests(l);
  expect(reqs).toHaveLength(2);
  expect(reqs[0]!.body.tools?.length).toBeGreaterThan(0);
  expect(reqs[1]!.body.tools).toBeUndefined();
  return reqs[1]!;
};
const toolMessages = (r: FakeRequest) => r.body.messages.filter((m) => m.role === 'tool');
const exitOf = (events: AgentEvent[]) => {
  const b = new ResultBuilder('teaching_assistant');
  events.forEach((e) => b.add(e));
  return exitCodeOf(b.result());
};

describe('limits', () => {
  it('defaults are unchanged when no flag is given', async () => {
    llm = await startLlm([]);
    const s = await session(testSettings(llm.url, tmp.dir), []);
    expect(s.limits).toEqual({
      max_iterations: 20,
      tool_limits: {},
      on_limit: 'warn',
      max_parallel_tools: 5,
      max_retries_per_tool: 1,
      retry_on_tool_error: false,
    });
    await s.close();
  });

  it('max_iterations=1 (warn): exactly one LLM request, with no tools; calls the model emits anyway never run', async () => {
    llm = await startLlm([{ text: 'R1 could not be checked within one iteration.', tool_calls: [showCall('R1', 'i1')] }]);
    const log: ToolLog = { calls: [] };
    const s = await session(testSettings(llm.url, tmp.dir, { max_iterations: 1 }), testTools(log));
    const ev = await collect(s.send('check R1'));
    const reqs = chatRequests(llm);
    expect(reqs).toHaveLength(1);
    expect(reqs[0]!.body.tools).toBeUndefined();
    expect(String(reqs[0]!.body.messages[0]!.content)).toContain('This is the last iteration this request allows. Do not call tools.');
    expect(log.calls).toHaveLength(0);
    expect(ofType(ev, 'tool_end')[0]).toMatchObject({ id: 'i1', status: 'limit', name: 'execute_multiple_device_commands' });
    expect(ofType(ev, 'tool_end')[0]!.output).toContain('Iteration limit reached (1/1)');
    const done = ofType(ev, 'done')[0]!;
    expect(done.stopped_reason).toBe('max_iterations');
    expect(done.stats.by_kind!.agent.llm_calls).toBe(1);
    expect(done.stats.llm_calls).toBe(2); // and the title: every call of the request counts
    expect(text(ev)).toContain('R1 could not be checked');
    expect(text(ev)).not.toContain('⚠ Stopped');
    expect(ofType(ev, 'limit')).toEqual([expect.objectContaining({ reason: 'max_iterations', action: 'wrap_up' })]);
    expect(exitOf(ev)).toBe(0);
    // the history stays valid: the next request answers normally
    llm.push({ text: 'second' });
    const ev2 = await collect(s.send('again'));
    expect(ofType(ev2, 'error')).toHaveLength(0);
    expect(text(ev2)).toContain('second');
    await s.close();
  });

  it('max_tool_calls=3 with 5 requested calls (warn) executes exactly 3; the model answers from the limit ToolMessages', async () => {
    const five = ['R1', 'R2', 'R3', 'R4', 'R5'].map((r, i) => showCall(r, `c${i}`));
    llm = await startLlm([{ tool_calls: five }, { text: 'R1-R3 are fine; R4 and R5 were not checked.' }]);
    const log: ToolLog = { calls: [] };
    const s = await session(testSettings(llm.url, tmp.dir, { max_tool_calls: 3 }), testTools(log));
    const ev = await collect(s.send('check all'));
    expect(log.calls).toHaveLength(3);
    const ends = ofType(ev, 'tool_end');
    expect(ends.map((e) => e.status).sort()).toEqual(['limit', 'limit', 'success', 'success', 'success']);
    for (const e of ends.filter((x) => x.status === 'limit'))
      expect(e.output).toContain(
        `Tool call limit reached (3/3): execute_multiple_device_commands was not run. Answer with the results you have.`,
      );
    // executed ones are the first three in call order
    expect(
      ends
        .filter((e) => e.status === 'success')
        .map((e) => e.id)
        .sort(),
    ).toEqual(['c0', 'c1', 'c2']);
    const wrapUp = wrapUpRequest(llm);
    expect(String(wrapUp.body.messages[0]!.content)).toContain('Do not call tools');
    const toolMsgs = toolMessages(wrapUp);
    expect(toolMsgs.map((m) => m.tool_call_id)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
    expect(String(toolMsgs[3]!.content)).toContain('Tool call limit reached (3/3)');
    const done = ofType(ev, 'done')[0]!;
    expect(done.stopped_reason).toBe('max_tool_calls');
    expect(done.stats.tool_calls).toBe(3);
    const b = new ResultBuilder('teaching_assistant');
    ev.forEach((e) => b.add(e));
    expect(b.result().response).toBe('R1-R3 are fine; R4 and R5 were not checked.');
    expect(exitOf(ev)).toBe(0);
    await s.close();
  });

  it('--tool-limit caps one tool; the other calls still run; the model answers without tools', async () => {
    llm = await startLlm([
      { tool_calls: [showCall('R1', 'a'), showCall('R2', 'b'), { id: 'c', name: 'get_gns3_templates', args: {} }] },
      { text: 'done with what ran' },
    ]);
    const log: ToolLog = { calls: [] };
    const s = await session(testSettings(llm.url, tmp.dir, { tool_limits: { execute_multiple_device_commands: 1 } }), testTools(log));
    const ev = await collect(s.send('x'));
    expect(log.calls.map((c) => c.name).sort()).toEqual(['execute_multiple_device_commands', 'get_gns3_templates']);
    const limited = ofType(ev, 'tool_end').find((e) => e.id === 'b')!;
    expect(limited.status).toBe('limit');
    expect(limited.output).toContain(
      'Tool call limit reached for execute_multiple_device_commands (1/1, --tool-limit execute_multiple_device_commands=1)',
    );
    expect(String(toolMessages(wrapUpRequest(llm)).find((m) => m.tool_call_id === 'b')!.content)).toContain('was not run');
    expect(text(ev)).toContain('done with what ran');
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('tool_limit');
    await s.close();
  });

  it('named caps: max_diagnostic_calls counts read tools, max_device_config_calls config tools', async () => {
    const cfg = (d: string, id: string) => ({
      id,
      name: 'execute_multiple_device_config_commands',
      args: { device_configs: [{ device_name: d, config_commands: ['router ospf 1'] }] },
    });
    llm = await startLlm([
      {
        tool_calls: [
          showCall('R1', 'r1'),
          { id: 'r2', name: 'get_gns3_templates', args: {} },
          showCall('R2', 'r3'),
          cfg('R1', 'k1'),
          cfg('R2', 'k2'),
        ],
      },
      { text: 'partly done' },
    ]);
    const log: ToolLog = { calls: [] };
    const settings = testSettings(llm.url, tmp.dir, { mode: 'lab', approve: 'all', max_diagnostic_calls: 2, max_device_config_calls: 1 });
    const s = await session(settings, testTools(log));
    const ev = await collect(s.send('check and fix'));
    const byId = Object.fromEntries(ofType(ev, 'tool_end').map((e) => [e.id, e]));
    expect([byId.r1!.status, byId.r2!.status, byId.r3!.status, byId.k1!.status, byId.k2!.status]).toEqual([
      'success',
      'success',
      'limit',
      'success',
      'limit',
    ]);
    expect(byId.r3!.output).toContain(
      'Diagnostic call limit reached (2/2, max_diagnostic_calls): execute_multiple_device_commands was not run. Answer with the results you have.',
    );
    expect(byId.k2!.output).toContain('Device config call limit reached (1/1, max_device_config_calls)');
    expect(log.calls).toHaveLength(3);
    wrapUpRequest(llm);
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('tool_limit');
    await s.close();
  });

  it('--max-time stops the loop and cancels the in-flight tool', async () => {
    llm = await startLlm([{ tool_calls: [showCall('R1')] }, { text: 'never reached' }]);
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
    llm = await startLlm([{ text: 'thinking very slowly', hang: true }]);
    const s = await session(testSettings(llm.url, tmp.dir, { max_time: 1 }), testTools({ calls: [] }));
    const t0 = Date.now();
    const ev = await collect(s.send('slow model'));
    expect(Date.now() - t0).toBeLessThan(4000);
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('max_time');
    expect(ofType(ev, 'error')).toHaveLength(0);
    expect(exitOf(ev)).toBe(0);
    await s.close();
  });

  it('--on-limit continue: max_iterations is soft; the run goes on with tools and reports limits_exceeded', async () => {
    llm = await startLlm([{ tool_calls: [showCall('R1', 'a')] }, { tool_calls: [showCall('R2', 'b')] }, { text: 'Both checked.' }]);
    const log: ToolLog = { calls: [] };
    const s = await session(testSettings(llm.url, tmp.dir, { max_iterations: 1, on_limit: 'continue' }), testTools(log));
    const ev = await collect(s.send('x'));
    const reqs = chatRequests(llm);
    expect(reqs).toHaveLength(3);
    for (const r of reqs) expect(r.body.tools?.length).toBeGreaterThan(0);
    expect(log.calls).toHaveLength(2);
    expect(ofType(ev, 'limit')).toEqual([expect.objectContaining({ reason: 'max_iterations', action: 'continue' })]);
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('done');
    const b = new ResultBuilder('teaching_assistant');
    ev.forEach((e) => b.add(e));
    expect(b.result().limits_exceeded).toEqual(['max_iterations']);
    expect(exitOf(ev)).toBe(0);
    await s.close();
  });

  it('--on-limit continue: max_tool_calls is soft up to the hard ceiling of 50 calls, then the model wraps up', async () => {
    const many = Array.from({ length: 52 }, (_, i) => showCall(`R${i}`, `m${i}`));
    llm = await startLlm([{ tool_calls: [showCall('R1', 'a'), showCall('R2', 'b')] }, { tool_calls: many }, { text: 'Checked 50.' }]);
    const log: ToolLog = { calls: [] };
    const s = await session(testSettings(llm.url, tmp.dir, { max_tool_calls: 1, on_limit: 'continue' }), testTools(log));
    const ev = await collect(s.send('x'));
    expect(log.calls).toHaveLength(50);
    const reqs = chatRequests(llm);
    expect(reqs).toHaveLength(3);
    expect(reqs[2]!.body.tools).toBeUndefined();
    expect(ofType(ev, 'tool_end').filter((e) => e.status === 'limit')).toHaveLength(4);
    expect(ofType(ev, 'limit').map((e) => [e.reason, e.action])).toEqual([
      ['max_tool_calls', 'continue'],
      ['max_tool_calls', 'wrap_up'],
    ]);
    const done = ofType(ev, 'done')[0]!;
    expect(done.stopped_reason).toBe('max_tool_calls');
    expect(done.stats.tool_calls).toBe(50);
    const b = new ResultBuilder('teaching_assistant');
    ev.forEach((e) => b.add(e));
    expect(b.result().limits_exceeded).toEqual(['max_tool_calls']);
    expect(exitOf(ev)).toBe(0);
    await s.close();
  });

  it('--on-limit fail reports a limit error (exit 5); warn exits 0', async () => {
    llm = await startLlm([
      { tool_calls: [showCall('R1'), showCall('R2')] },
      { tool_calls: [showCall('R1'), showCall('R2')] },
      { text: 'partial answer' },
    ]);
    const s = await session(testSettings(llm.url, tmp.dir, { max_tool_calls: 1, on_limit: 'fail' }), testTools({ calls: [] }));
    const ev = await collect(s.send('x'));
    expect(ofType(ev, 'error')[0]!.error.type).toBe('limit');
    expect(exitOf(ev)).toBe(5);
    // fail keeps its meaning: no extra LLM call
    expect(chatRequests(llm)).toHaveLength(1);
    s.setLimits({ on_limit: 'warn' });
    const ev2 = await collect(s.send('again'));
    expect(ofType(ev2, 'error')).toHaveLength(0);
    expect(ofType(ev2, 'done')[0]!.stopped_reason).toBe('max_tool_calls');
    expect(text(ev2)).toContain('partial answer');
    expect(chatRequests(llm)).toHaveLength(3);
    expect(exitOf(ev2)).toBe(0);
    await s.close();
  });

  it('limits are per request and the recursion limit never reaches the user', async () => {
    const loop = Array.from({ length: 2 }, (_, i) => ({ tool_calls: [showCall('R1', `l${i}`)] }));
    llm = await startLlm([
      ...loop,
      { text: 'first answer' },
      ...loop.map((_t, i) => ({ tool_calls: [showCall('R1', `m${i}`)] })),
      { text: 'second answer' },
    ]);
    const log: ToolLog = { calls: [] };
    const s = await session(testSettings(llm.url, tmp.dir, { max_iterations: 3 }), testTools(log));
    for (const prompt of ['first', 'second']) {
      const ev = await collect(s.send(prompt));
      expect(ofType(ev, 'error')).toHaveLength(0);
      const done = ofType(ev, 'done')[0]!;
      expect(done.stopped_reason).toBe('max_iterations');
      // two iterations with tools, the third and last without
      expect(done.stats.by_kind!.agent.llm_calls).toBe(3);
      // the first request's stats count its title call too
      expect(done.stats.llm_calls).toBe(prompt === 'first' ? 4 : 3);
      expect(text(ev)).toContain(`${prompt} answer`);
    }
    expect(log.calls).toHaveLength(4);
    await s.close();
  });
});

describe('tool execution', () => {
  it('runs the tool calls of one LLM turn in parallel and returns results in call order', async () => {
    llm = await startLlm([{ tool_calls: [showCall('R1', 'p1'), showCall('R2', 'p2'), showCall('R3', 'p3')] }, { text: 'ok' }]);
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
    const sent = toolMessages(chatRequests(llm)[1]!);
    expect(sent.map((m) => m.tool_call_id)).toEqual(['p1', 'p2', 'p3']);
    await s.close();
  });

  it('max_parallel_tools=2: never more than 2 calls overlap, results stay in call order', async () => {
    const ids = ['q0', 'q1', 'q2', 'q3', 'q4', 'q5', 'q6'];
    llm = await startLlm([{ tool_calls: ids.map((id, i) => showCall(`R${i}`, id)) }, { text: 'ok' }]);
    const log: ToolLog = { calls: [], spans: [] };
    const s = await session(testSettings(llm.url, tmp.dir, { max_parallel_tools: 2 }), testTools(log, { slowMs: 150 }));
    await collect(s.send('seven at once'));
    expect(log.calls).toHaveLength(7);
    // the most calls running at any start instant, timed inside the tool
    const all = log.spans!;
    const overlap = Math.max(...all.map((a) => all.filter((b) => b.start <= a.start && b.end > a.start).length));
    expect(overlap).toBe(2);
    // 7 calls of 150 ms two at a time take at least 4 rounds
    const wall = Math.max(...all.map((a) => a.end)) - Math.min(...all.map((a) => a.start));
    expect(wall).toBeGreaterThanOrEqual(4 * 150 - 20);
    const sent = toolMessages(chatRequests(llm)[1]!);
    expect(sent.map((m) => m.tool_call_id)).toEqual(ids);
    expect(log.calls.map((c) => (c.args as { device_configs: { device_name: string }[] }).device_configs[0]!.device_name)).toEqual(
      ids.map((_, i) => `R${i}`),
    );
    await s.close();
  });

  it('duplicate tool-call ids in one response: each call gets its own id and result, the model is told which id it reused', async () => {
    llm = await startLlm([{ tool_calls: [showCall('R1', 'dup'), showCall('R2', 'dup')] }, { text: 'both checked' }]);
    const log: ToolLog = { calls: [] };
    const s = await session(testSettings(llm.url, tmp.dir), testTools(log));
    const ev = await collect(s.send('two with one id'));
    expect(log.calls).toHaveLength(2);
    expect(ofType(ev, 'tool_call').map((e) => e.id)).toEqual(['dup', 'dup~dup2']);
    const b = new ResultBuilder('teaching_assistant');
    ev.forEach((e) => b.add(e));
    expect(b.result().tool_calls.map((c) => [c.id, c.status])).toEqual([
      ['dup', 'success'],
      ['dup~dup2', 'success'],
    ]);
    const sent = toolMessages(chatRequests(llm)[1]!);
    expect(sent.map((m) => m.tool_call_id)).toEqual(['dup', 'dup~dup2']);
    expect(String(sent[0]!.content)).not.toContain('Note:');
    expect(String(sent[1]!.content)).toContain('your response used the tool call id "dup" for more than one call');
    await s.close();
  });

  it('logs the effective limits of every request', async () => {
    llm = await startLlm([{ text: 'a' }, { text: 'b' }]);
    const lines: { msg: string; data?: Record<string, unknown> }[] = [];
    const capture = {
      error() {},
      warn() {},
      debug() {},
      info: (msg: string, data?: Record<string, unknown>) => void lines.push({ msg, data }),
    };
    const s = await session(testSettings(llm.url, tmp.dir, { max_tool_calls: 7, tool_limits: { get_gns3_templates: 2 } }), [], {
      log: capture,
    });
    await collect(s.send('one'));
    s.setLimits({ max_iterations: 5 });
    await collect(s.send('two'));
    const reqs = lines.filter((l) => l.msg === 'request');
    expect(reqs).toHaveLength(2);
    expect(reqs[0]!.data!.limits).toEqual({
      max_iterations: 20,
      max_tool_calls: 7,
      max_time_s: 'none',
      max_cost_usd: 'none',
      tool_limits: { get_gns3_templates: 2 },
      on_limit: 'warn',
      max_parallel_tools: 5,
      max_retries_per_tool: 1,
      retry_on_tool_error: false,
      max_device_config_calls: 'unlimited',
      max_diagnostic_calls: 'unlimited',
    });
    expect((reqs[1]!.data!.limits as { max_iterations: number }).max_iterations).toBe(5);
    await s.close();
  });
});

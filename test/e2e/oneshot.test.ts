/**
 * The built CLI in one-shot mode against the fake LLM over HTTP: output formats
 * validated against the schema in ./oneshot-schema.ts, stdout/stderr separation,
 * exit codes (src/errors.ts), piped prompts, --continue across processes, SIGINT.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { FakeLlm } from '../fakes/llm/server.js';
import { startFakeGns3 } from '../fakes/gns3/server.js';
import { fakeLlmServers } from '../helpers/fake-llm.js';
import { cliEnv, llmFlags, runCli, sigintAtFirstContent } from './oneshot-cli.js';
import { parseJsonResult, parseStreamJson } from './oneshot-schema.js';
import { commandCall } from '../helpers/tool-calls.js';

const env = cliEnv();
afterAll(() => env.cleanup());
const startLlm = fakeLlmServers();
let llm: FakeLlm | undefined;

const show = (device: string, id: string) => commandCall(device, ['show version'], id);

describe('one-shot output', () => {
  it('plain text: stdout is only the answer', async () => {
    llm = await startLlm([{ text: 'The answer is 42.' }]);
    const r = await runCli(['-p', 'what is the answer?', ...llmFlags(llm.url)], env.env);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('The answer is 42.\n');
  });

  it('--json validates against the schema and lists tool calls', async () => {
    // no project: the device tool reports an error result, the run still completes
    llm = await startLlm([{ text: 'Checking.', tool_calls: [show('R1', 'c1')] }, { text: 'R1 could not be reached.' }]);
    const r = await runCli(['-p', 'check R1', '--json', ...llmFlags(llm.url)], env.env);
    expect(r.code).toBe(0);
    const j = parseJsonResult(r.stdout);
    expect(j.response).toBe('R1 could not be reached.');
    expect(j.tool_calls).toHaveLength(1);
    expect(j.tool_calls[0]).toMatchObject({
      id: 'c1',
      name: 'execute_multiple_device_commands',
      args: { device_configs: [{ device_name: 'R1', commands: ['show version'] }] },
    });
    // the two answers and the title: every call of the request counts
    expect(j.stats).toMatchObject({ llm_calls: 3, iterations: 2 });
    expect(j.stats.by_kind).toMatchObject({ agent: { llm_calls: 2, tool_calls: 1 }, title: { llm_calls: 1, tool_calls: 0 } });
    expect(j.stopped_reason).toBe('done');
    expect(j.error).toBeNull();
    expect(j.mode).toBe('teaching_assistant');
  });

  it('--stream-json: one valid event per line with timestamps, init first, done last', async () => {
    llm = await startLlm([{ tool_calls: [show('R1', 's1')] }, { text: 'Done streaming.' }]);
    const r = await runCli(['-p', 'stream it', '--stream-json', ...llmFlags(llm.url)], env.env);
    expect(r.code).toBe(0);
    const ev = parseStreamJson(r.stdout);
    expect(ev[0]!.type).toBe('init');
    const types = ev.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['context', 'tool_call', 'tool_start', 'tool_end', 'content', 'done']));
    expect(types.indexOf('tool_call')).toBeLessThan(types.indexOf('tool_start'));
    expect(
      ev
        .filter((e) => e.type === 'content')
        .map((e) => (e as { delta: string }).delta)
        .join(''),
    ).toBe('Done streaming.');
  });

  it('--estimate prints the token counts of the first call and its worst case, sends nothing, exit 0; --json as an object', async () => {
    llm = await startLlm([{ text: 'never asked' }]);
    const flags = [...llmFlags(llm.url), '--max-iterations', '4'];
    const prices = { ...env.env, GNS3_COPILOT_MODEL_PRICES: JSON.stringify({ 'fake-model': { input: 1, output: 2 } }) };
    const j = await runCli(['-p', 'how big is this?', '--estimate', '--json', ...flags], prices);
    expect(j.code).toBe(0);
    const e = (JSON.parse(j.stdout) as { estimate: Record<string, unknown> & { tokens: { total: number }; messages: unknown } }).estimate;
    expect(e.tokens.total).toBeGreaterThan(0);
    expect(e.messages).toEqual({ history: 1, sent: 1, trimmed: 0 });
    expect(e.max_iterations).toBe(4);
    expect(e.worst_case_usd).toEqual(expect.any(Number));
    const t = await runCli(['-p', 'how big is this?', '--estimate', ...flags], prices);
    expect(t.code).toBe(0);
    expect(t.stdout).toContain('estimate for the first LLM call of this request (nothing sent, no tool run)');
    expect(t.stdout).toContain('4 iterations ×');
    expect(llm.requests).toHaveLength(0);
    const s = await runCli(['-p', 'x', '--estimate', '--stream-json', ...flags], env.env);
    expect(s.code).toBe(2);
    expect(s.stderr).toContain('--estimate prints text or --json');
  });

  it('a prompt piped on stdin runs one-shot', async () => {
    llm = await startLlm([{ text: 'piped ok' }]);
    const r = await runCli(['--json', ...llmFlags(llm.url)], env.env, { stdin: 'from a pipe\n' });
    expect(r.code).toBe(0);
    expect(parseJsonResult(r.stdout).response).toBe('piped ok');
    expect(llm.requests[0]!.body.messages.at(-1)!.content).toBe('from a pipe');
  });

  it('--continue picks up the previous session in a new process', async () => {
    const e = cliEnv();
    llm = await startLlm([{ text: 'first' }, { text: 'second' }]);
    const a = parseJsonResult((await runCli(['-p', 'remember the number 7', '--json', ...llmFlags(llm.url)], e.env)).stdout);
    const r = await runCli(['-p', 'which number?', '--json', '-c', ...llmFlags(llm.url)], e.env);
    const b = parseJsonResult(r.stdout);
    expect(b.session_id).toBe(a.session_id);
    const msgs = llm.requests.filter((q) => q.purpose === null)[1]!.body.messages;
    expect(msgs.map((m) => m.content)).toContain('remember the number 7');
    const resumed = await runCli(['-p', 'again', '--json', '--resume', a.session_id!.slice(0, 8), ...llmFlags(llm.url)], e.env);
    expect(resumed.code).toBe(4); // script exhausted → provider refused (400) → exit 4
    expect(parseJsonResult(resumed.stdout).session_id).toBe(a.session_id);
    e.cleanup();
  });
});

describe('resuming and the project', () => {
  it('a resumed session reopens its own project; only a typed --project moves it', async () => {
    const e = cliEnv();
    const gns3 = await startFakeGns3({ api: 'v2' });
    const alpha = gns3.addProject({ name: 'alpha' });
    const beta = gns3.addProject({ name: 'beta' });
    llm = await startLlm([{ text: 'one' }, { text: 'two' }, { text: 'three' }]);
    const flags = [...llmFlags(llm.url), '--server', gns3.url];
    const a = parseJsonResult((await runCli(['-p', 'hi', '--json', '--project', 'alpha', ...flags], e.env)).stdout);
    expect(a.project_id).toBe(alpha);
    const id = a.session_id!;
    // GNS3_PROJECT names another project: the session still talks about alpha
    const b = parseJsonResult(
      (await runCli(['-p', 'again', '--json', '--resume', id, ...flags], { ...e.env, GNS3_PROJECT: 'beta' })).stdout,
    );
    expect(b.project_id).toBe(alpha);
    // a --project typed on the command line wins
    const c = parseJsonResult((await runCli(['-p', 'move', '--json', '--resume', id, '--project', 'beta', ...flags], e.env)).stdout);
    expect(c.session_id).toBe(id);
    expect(c.project_id).toBe(beta);
    await gns3.close();
    e.cleanup();
  });
});

describe('one-shot exit codes', () => {
  it('401 → exit 4 with one line on stderr, JSON error on stdout', async () => {
    llm = await startLlm([{ text: 'x' }], { apiKey: 'expected-key-1234' });
    const r = await runCli(['-p', 'hi', '--json', ...llmFlags(llm.url)], { ...env.env, GNS3_COPILOT_API_KEY: 'bad-key-5678' });
    expect(r.code).toBe(4);
    const j = parseJsonResult(r.stdout);
    expect(j.error).toMatchObject({ type: 'provider' });
    expect(j.error!.message).toContain('401');
    expect(r.stdout + r.stderr).not.toContain('bad-key-5678');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('unknown model without context_limit → exit 2 naming the setting', async () => {
    llm = await startLlm([]);
    const r = await runCli(['-p', 'hi', '--provider', 'custom', '--base-url', llm.url, '--model', 'my-local-model'], env.env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/context_limit is required/);
    expect(r.stdout).toBe('');
  });

  it("--on-limit fail → exit 5; default warn → exit 0 with the model's tools-free answer", async () => {
    llm = await startLlm([
      { tool_calls: [show('R1', 'a'), show('R2', 'b')] },
      { tool_calls: [show('R1', 'c'), show('R2', 'd')] },
      { text: 'R1 checked; R2 skipped by the tool call limit.' },
    ]);
    const fail = await runCli(['-p', 'x', '--json', '--max-tool-calls', '1', '--on-limit', 'fail', ...llmFlags(llm.url)], env.env);
    expect(fail.code).toBe(5);
    const j = parseJsonResult(fail.stdout);
    expect(j.stopped_reason).toBe('max_tool_calls');
    expect(j.error!.type).toBe('limit');
    expect(j.tool_calls.map((t) => t.status)).toContain('limit');
    const warn = await runCli(['-p', 'x', '--max-tool-calls', '1', ...llmFlags(llm.url)], env.env);
    expect(warn.code).toBe(0);
    expect(warn.stdout).toContain('R2 skipped by the tool call limit.');
  });

  it('max_iterations=1 → exactly one LLM call, offered no tools; a call the model emits anyway is not run', async () => {
    llm = await startLlm([{ text: 'Out of iterations before checking R1.', tool_calls: [show('R1', 'a')] }]);
    const r = await runCli(['-p', 'x', '--json', '--max-iterations', '1', ...llmFlags(llm.url)], env.env);
    expect(r.code).toBe(0);
    const j = parseJsonResult(r.stdout);
    expect(j.stopped_reason).toBe('max_iterations');
    expect(j.stats.by_kind!.agent.llm_calls).toBe(1);
    const chats = llm.requests.filter((q) => q.purpose === null);
    expect(chats).toHaveLength(1);
    expect(chats[0]!.body.tools).toBeUndefined();
    expect(j.response).toBe('Out of iterations before checking R1.');
    expect(j.tool_calls[0]!.output).toContain('Iteration limit reached (1/1)');
  });

  it('config tool without --approve → blocked result explaining --approve config, exit 6', async () => {
    const cfg = {
      id: 'k',
      name: 'execute_multiple_device_config_commands',
      args: { device_configs: [{ device_name: 'R1', config_commands: ['router ospf 1'] }] },
    };
    llm = await startLlm([{ tool_calls: [cfg] }, { text: 'I need approval for that.' }]);
    const r = await runCli(['-p', 'configure', '--json', '-m', 'lab', ...llmFlags(llm.url)], env.env);
    expect(r.code).toBe(6);
    const j = parseJsonResult(r.stdout);
    expect(j.tool_calls[0]).toMatchObject({ status: 'blocked', code: 'approval_required' });
    expect(j.tool_calls[0]!.output).toContain('--approve config');
    expect(j.error!.type).toBe('approval');
    expect(j.response).toBe('I need approval for that.');
  });

  it('controller unreachable → exit 3', async () => {
    llm = await startLlm([{ text: 'never' }]);
    const r = await runCli(['-p', 'x', '--json', '--server', 'http://127.0.0.1:9', '--project', 'lab', ...llmFlags(llm.url)], env.env);
    expect(r.code).toBe(3);
    const j = parseJsonResult(r.stdout);
    expect(j.error!.type).toBe('controller');
    expect(j.session_id).not.toBeNull();
    expect(llm.requests).toHaveLength(0);
    const list = await runCli(['sessions', 'list', '--json'], env.env);
    expect((JSON.parse(list.stdout) as { sessions: { id: string }[] }).sessions.map((x) => x.id)).not.toContain(j.session_id);
  });

  it('--approve ask in one-shot is a usage error', async () => {
    llm = await startLlm([]);
    const r = await runCli(['-p', 'x', '--approve', 'ask', ...llmFlags(llm.url)], env.env);
    expect(r.code).toBe(2);
  });

  it('SIGINT mid-stream → exit 130, then --continue works', async () => {
    const e = cliEnv();
    llm = await startLlm([{ text: 'a long streamed answer', hang: true }, { text: 'after the interrupt' }]);
    const r = await runCli(['-p', 'long one', '--stream-json', ...llmFlags(llm.url)], e.env, { onSpawn: sigintAtFirstContent });
    expect(r.code).toBe(130);
    const ev = parseStreamJson(r.stdout);
    expect(ev.at(-1)).toMatchObject({ type: 'done', stopped_reason: 'aborted' });
    const next = await runCli(['-p', 'go on', '--json', '-c', ...llmFlags(llm.url)], e.env);
    expect(next.code).toBe(0);
    expect(parseJsonResult(next.stdout).response).toBe('after the interrupt');
    e.cleanup();
  });
});

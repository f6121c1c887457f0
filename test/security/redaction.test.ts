/**
 * No secret reaches an output, the sessions DB, or the log.
 * The built binary against the fake LLM: a provider error body that echoes the
 * Authorization header, model text and tool arguments that repeat the key or a
 * device password; then every file under the run's HOME is searched.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { llmFlags, runCli } from '../e2e/oneshot-cli.js';
import { parseJsonResult } from '../e2e/oneshot-schema.js';
import { redact, registerSecret, StreamRedactor } from '../../src/security/redact.js';
import { cliScope } from '../helpers/cli-scope.js';
import { commandCall } from '../helpers/tool-calls.js';

const KEY = 'sk-test-Zq81mXr4PvT9wKd2LsY7';
const DEVICE_PW = 'Lab-Passw0rd-77';
const scope = cliScope({ GNS3_COPILOT_API_KEY: KEY, GNS3_COPILOT_DEVICE_PASSWORD: DEVICE_PW, GNS3_COPILOT_LLM_RETRIES: '0' });

/** Every file the run wrote (sessions.db and its WAL, config, the log), as text. */
function allFiles(dir: string): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...allFiles(p));
    else out.push({ file: p, text: readFileSync(p).toString('latin1') });
  }
  return out;
}

function expectNowhere(secret: string, ...texts: string[]): void {
  for (const t of texts) expect(t).not.toContain(secret);
}

describe('a provider error echoing the Authorization header', () => {
  it('is redacted in --json error.message, stderr, the sessions DB and the log', async () => {
    const e = scope.fresh();
    const llm = await scope.startLlm([
      { error: { status: 500, message: `upstream failed; request headers: Authorization: Bearer ${KEY}; key=${KEY}` } },
    ]);
    const r = await runCli(['-p', 'hello', '--json', '--verbose', ...llmFlags(llm.url)], e.env);
    expect(r.code).toBe(4);
    const j = parseJsonResult(r.stdout);
    expect(j.error!.message).toMatch(/LLM provider error 500/);
    expect(j.error!.message).toContain('[REDACTED]');
    expectNowhere(KEY, r.stdout, r.stderr);
    const files = allFiles(e.home);
    expect(files.some((f) => f.file.endsWith('sessions.db'))).toBe(true);
    expect(files.some((f) => f.file.endsWith('.log'))).toBe(true);
    for (const f of files) expect(f.text, f.file).not.toContain(KEY);
  });

  it('is redacted in text mode and --stream-json', async () => {
    const e = scope.fresh();
    const llm = await scope.startLlm([
      { error: { status: 500, message: `Authorization: Bearer ${KEY}` } },
      { error: { status: 500, message: `echo ${KEY}` } },
    ]);
    const t = await runCli(['-p', 'hello', ...llmFlags(llm.url)], e.env);
    expect(t.code).toBe(4);
    const s = await runCli(['-p', 'hello', '--stream-json', ...llmFlags(llm.url)], e.env);
    expect(s.code).toBe(4);
    expectNowhere(KEY, t.stdout, t.stderr, s.stdout, s.stderr);
    expect(s.stderr).toContain('[REDACTED]');
  });
});

describe('model text and tool arguments', () => {
  it('a key or device password repeated by the model never reaches stdout, --json or the DB', async () => {
    const e = scope.fresh();
    const call = commandCall('R1', [`show run | include ${DEVICE_PW}`]);
    const llm = await scope.startLlm([
      { text: `Your key is ${KEY} and the device password is ${DEVICE_PW}.`, tool_calls: [call] },
      { text: `Done; the password ${DEVICE_PW} works.` },
    ]);
    const r = await runCli(['-p', 'tell me secrets', '--json', ...llmFlags(llm.url)], e.env);
    expect(r.code, r.stderr).toBe(0);
    const j = parseJsonResult(r.stdout);
    expect(j.response).toContain('the password [REDACTED] works');
    expectNowhere(KEY, r.stdout, r.stderr);
    expectNowhere(DEVICE_PW, r.stdout, r.stderr);
    const text = await runCli(['-p', 'again', '-c', ...llmFlags(llm.url)], e.env);
    expectNowhere(DEVICE_PW, text.stdout, text.stderr);
    for (const f of allFiles(e.home)) {
      expect(f.text, f.file).not.toContain(KEY);
      expect(f.text, f.file).not.toContain(DEVICE_PW);
    }
  });
});

describe('URLs with user:password@', () => {
  it('config set base_url and --base-url refuse credentials in the URL', async () => {
    const e = scope.fresh();
    const set = await runCli(['config', 'set', 'base_url', 'http://bob:s3cretpass@127.0.0.1:9/v1'], e.env);
    expect(set.code).toBe(2);
    expect(set.stderr).toMatch(/must not contain user:password@/);
    expectNowhere('s3cretpass', set.stderr, set.stdout);
    const flag = await runCli(
      ['-p', 'x', '--base-url', 'http://bob:s3cretpass@127.0.0.1:9/v1', '--provider', 'custom', '--model', 'm', '--context-limit', '8'],
      e.env,
    );
    expect(flag.code).toBe(2);
    expectNowhere('s3cretpass', flag.stderr, flag.stdout);
    for (const f of allFiles(e.home)) expect(f.text).not.toContain('s3cretpass');
  });
});

describe('redact()', () => {
  it('removes registered values, header/bearer/sk-/userinfo/key=value shapes, also split across stream deltas', () => {
    registerSecret('hunter2-long');
    expect(redact('Authorization: Basic dXNlcjpwYXNz and x-api-key=abcdef12')).toBe(
      'Authorization: Basic [REDACTED] and x-api-key=[REDACTED]',
    );
    expect(redact('{"authorization":"Bearer abc.def.ghi"}')).toBe('{"authorization":"Bearer [REDACTED]"}');
    expect(redact('see http://alice:pw1234@10.0.0.1:3080/v3')).toBe('see http://alice:[REDACTED]@10.0.0.1:3080/v3');
    expect(redact('token sk-proj-abcdefghijklmnopqrstuv')).toBe('token sk-[REDACTED]');
    expect(redact('enable hunter2-long now')).toBe('enable [REDACTED] now');
    expect(redact('JSON "hunter2-long"')).toBe('JSON "[REDACTED]"');
    const s = new StreamRedactor();
    const out =
      ['the word hun', 'ter2-', 'long is it. Authoriz', 'ation: Bearer abcdefgh', '12345 ok'].map((d) => s.push(d)).join('') + s.flush();
    expect(out).toBe('the word [REDACTED] is it. Authorization: Bearer [REDACTED] ok');
  });
});

describe('held-back words', () => {
  it('the last word of an answer is released when the stream ends, before the title request', async () => {
    const { RedactingEventQueue } = await import('../../src/security/events.js');
    const q = new RedactingEventQueue();
    q.push({ type: 'content', delta: 'the last word is test' });
    q.push({ type: 'content', delta: '' });
    q.end();
    const out: unknown[] = [];
    for await (const e of q) out.push(e);
    expect(out).toEqual([
      { type: 'content', delta: 'the last word is ' },
      { type: 'content', delta: 'test' },
    ]);
  });
});

describe('a stalled stream', () => {
  it('releases a held word after a short pause', async () => {
    const { RedactingEventQueue, HOLD_MS } = await import('../../src/security/events.js');
    const q = new RedactingEventQueue();
    q.push({ type: 'content', delta: 'explaining ospf areas' });
    const it = q[Symbol.asyncIterator]();
    expect((await it.next()).value).toEqual({ type: 'content', delta: 'explaining ospf ' });
    const t0 = Date.now();
    expect((await it.next()).value).toEqual({ type: 'content', delta: 'areas' });
    expect(Date.now() - t0).toBeLessThan(HOLD_MS + 500);
    q.end();
  });
});

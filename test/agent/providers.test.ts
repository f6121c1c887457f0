/** Providers: presets, chat completions forced, retries and one-line errors (exit 4). */
import { describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import type { FakeLlm } from '../fakes/llm/server.js';
import { collect, ofType, session, testSettings, text, useFakeLlm } from './helpers.js';
import { resolveProviderEndpoint, knownContextLimitK, encodingForModel } from '../../src/agent/providers.js';
import { ResultBuilder, exitCodeOf } from '../../src/output/summary.js';
import type { AgentEvent } from '../../src/core/events.js';

const { tmp, startLlm } = useFakeLlm('gc-providers-');
let llm: FakeLlm | undefined;
const exitOf = (ev: AgentEvent[]) => {
  const b = new ResultBuilder('teaching_assistant');
  ev.forEach((e) => b.add(e));
  return exitCodeOf(b.result());
};

describe('provider endpoints', () => {
  it('has presets for local and hosted providers; custom needs base_url', () => {
    expect(resolveProviderEndpoint({ provider: 'ollama', model: 'qwen3', base_url: undefined }).baseURL).toBe('http://127.0.0.1:11434/v1');
    expect(resolveProviderEndpoint({ provider: 'lmstudio', model: 'm', base_url: undefined }).baseURL).toBe('http://127.0.0.1:1234/v1');
    expect(resolveProviderEndpoint({ provider: 'vllm', model: 'm', base_url: undefined }).baseURL).toBe('http://127.0.0.1:8000/v1');
    expect(resolveProviderEndpoint({ provider: 'deepseek', model: 'deepseek-chat', base_url: undefined }).baseURL).toBe(
      'https://api.deepseek.com/v1',
    );
    expect(resolveProviderEndpoint({ provider: 'openrouter', model: 'm', base_url: undefined }).baseURL).toBe(
      'https://openrouter.ai/api/v1',
    );
    expect(resolveProviderEndpoint({ provider: 'openai', model: 'm', base_url: 'http://127.0.0.1:9/v1/' }).baseURL).toBe(
      'http://127.0.0.1:9/v1',
    );
    expect(() => resolveProviderEndpoint({ provider: 'custom', model: 'm', base_url: undefined })).toThrow(/--base-url/);
    expect(knownContextLimitK('deepseek-chat')).toBe(64);
    expect(knownContextLimitK('gpt-4o-mini-2024')).toBe(128);
    expect(encodingForModel('gpt-4o')).toBe('o200k_base');
    expect(encodingForModel('qwen3')).toBe('cl100k_base');
  });

  it('ollama needs no API key', async () => {
    llm = await startLlm([{ text: 'local answer' }]);
    const s = await session(testSettings(llm.url, tmp.dir, { provider: 'ollama' }), []);
    expect(text(await collect(s.send('hi')))).toContain('local answer');
    await s.close();
  });

  it('uses chat completions even for model names ChatOpenAI would send to the Responses API', async () => {
    llm = await startLlm([{ text: 'via chat completions' }]);
    const s = await session(testSettings(llm.url, tmp.dir, { model: 'gpt-5.1-codex', context_limit: 64 }), []);
    const ev = await collect(s.send('hi'));
    expect(text(ev)).toContain('via chat completions');
    expect(llm.requests[0]!.path).toBe('/v1/chat/completions');
    expect(llm.requests[0]!.body.stream).toBe(true);
    expect(llm.requests[0]!.body.stream_options).toEqual({ include_usage: true });
    await s.close();
  });

  it('passes temperature and sends the API key', async () => {
    llm = await startLlm([{ text: 'ok' }], { apiKey: 'sk-test-123456' });
    process.env.GNS3_COPILOT_API_KEY = 'sk-test-123456';
    try {
      const s = await session(testSettings(llm.url, tmp.dir, { temperature: 0.3, provider: 'openai' }), []);
      await collect(s.send('hi'));
      expect(llm.requests[0]!.body.temperature).toBe(0.3);
      await s.close();
    } finally {
      delete process.env.GNS3_COPILOT_API_KEY;
    }
  });
});

describe('provider errors', () => {
  it('401 → one clear line, exit 4', async () => {
    llm = await startLlm([{ text: 'never' }], { apiKey: 'right-key-0000' });
    process.env.GNS3_COPILOT_API_KEY = 'wrong-key-0000';
    try {
      const s = await session(testSettings(llm.url, tmp.dir, { provider: 'openai' }), []);
      const ev = await collect(s.send('hi'));
      const err = ofType(ev, 'error')[0]!.error;
      expect(err.type).toBe('provider');
      expect(err.message).toMatch(/rejected the API key \(401\)/);
      expect(err.message).not.toContain('\n');
      expect(err.message).not.toContain('wrong-key');
      expect(exitOf(ev)).toBe(4);
      expect(llm.requests).toHaveLength(1); // no retry on 401
      await s.close();
    } finally {
      delete process.env.GNS3_COPILOT_API_KEY;
    }
  });

  it('404 names the model and the base URL', async () => {
    llm = await startLlm([{ error: { status: 404, message: 'model not found' } }]);
    const s = await session(testSettings(llm.url, tmp.dir), []);
    const ev = await collect(s.send('hi'));
    expect(ofType(ev, 'error')[0]!.error.message).toMatch(/not found \(404\): model "fake-model".*--base-url/);
    expect(exitOf(ev)).toBe(4);
    await s.close();
  });

  it('429 and 500 are retried with backoff, then succeed', async () => {
    llm = await startLlm([{ error: { status: 429 } }, { error: { status: 500 } }, { text: 'third time lucky' }]);
    const s = await session(testSettings(llm.url, tmp.dir), []);
    const ev = await collect(s.send('hi'));
    expect(text(ev)).toContain('third time lucky');
    expect(ofType(ev, 'error')).toHaveLength(0);
    expect(llm.requests.filter((r) => r.purpose === null)).toHaveLength(3);
    await s.close();
  });

  it('persistent 500 is bounded and reported', async () => {
    llm = await startLlm([{ error: { status: 500 } }, { error: { status: 502 } }, { error: { status: 503 } }, { text: 'too late' }]);
    const s = await session(testSettings(llm.url, tmp.dir), []);
    const ev = await collect(s.send('hi'));
    expect(ofType(ev, 'error')[0]!.error.message).toMatch(/error 503 persisted after 3 attempts/);
    expect(exitOf(ev)).toBe(4);
    await s.close();
  });

  it('llm_retries is the number of retries: 0 is one request, 1 is two; the message says how many attempts', async () => {
    llm = await startLlm([{ error: { status: 500 } }, { error: { status: 502 } }, { error: { status: 503 } }, { text: 'late' }]);
    const none = await session(testSettings(llm.url, tmp.dir, { llm_retries: 0 }), []);
    const ev0 = await collect(none.send('hi'));
    expect(llm.requests.filter((r) => r.purpose === null)).toHaveLength(1);
    expect(ofType(ev0, 'error')[0]!.error.message).toMatch(/error 500 on the only attempt \(llm_retries is 0\)/);
    await none.close();
    const one = await session(testSettings(llm.url, tmp.dir, { llm_retries: 1 }), []);
    const ev1 = await collect(one.send('hi'));
    expect(llm.requests.filter((r) => r.purpose === null)).toHaveLength(3);
    expect(ofType(ev1, 'error')[0]!.error.message).toMatch(/error 503 persisted after 2 attempts/);
    await one.close();
    for (const bad of [-1, 11, 1.5]) expect(() => testSettings(llm!.url, tmp.dir, { llm_retries: bad }), String(bad)).toThrow();
  });

  it('connection refused is one line naming the endpoint', async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = createServer();
      srv.listen(0, '127.0.0.1', () => {
        const p = (srv.address() as { port: number }).port;
        srv.close(() => resolve(p));
      });
    });
    const s = await session(testSettings(`http://127.0.0.1:${port}/v1`, tmp.dir), []);
    const ev = await collect(s.send('hi'));
    const err = ofType(ev, 'error')[0]!.error;
    expect(err.message).toMatch(/Cannot reach the LLM provider custom at http:\/\/127\.0\.0\.1:\d+\/v1 \(connection refused\)/);
    expect(exitOf(ev)).toBe(4);
    await s.close();
  });

  it('a slow stream still completes', async () => {
    llm = await startLlm([{ text: 'slow but steady answer here', chunk_delay_ms: 60, delay_ms: 200 }]);
    const s = await session(testSettings(llm.url, tmp.dir), []);
    const ev = await collect(s.send('hi'));
    expect(ofType(ev, 'content').length).toBeGreaterThan(3);
    expect(text(ev)).toBe('slow but steady answer here');
    await s.close();
  });
});

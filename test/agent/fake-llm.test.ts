/** The fake LLM speaks the protocol real clients expect (it is a peer of many tests). */
import { afterEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeLlm, type FakeLlm } from '../fakes/llm/server.js';
import { tempDir } from './helpers.js';

let llm: FakeLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

async function sse(url: string, body: unknown): Promise<Record<string, any>[]> {
  const res = await fetch(`${url}/chat/completions`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  const text = await res.text();
  expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
  return text
    .split('\n\n')
    .filter((b) => b.startsWith('data: {'))
    .map((b) => JSON.parse(b.slice(6)) as Record<string, any>);
}

describe('fake LLM', () => {
  it('streams tool-call arguments split across chunks, then a usage chunk', async () => {
    llm = await startFakeLlm([
      { text: 'hello world', tool_calls: [{ id: 'c1', name: 'tool_a', args: { device: 'R1', commands: ['show ip route'] } }] },
    ]);
    const chunks = await sse(llm.url, {
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'x' }],
    });
    const argFrags = chunks.flatMap((c) => c.choices?.[0]?.delta?.tool_calls ?? []).map((t: any) => t.function?.arguments ?? '');
    expect(argFrags.filter((f: string) => f.length > 0).length).toBeGreaterThan(1);
    expect(JSON.parse(argFrags.join(''))).toEqual({ device: 'R1', commands: ['show ip route'] });
    expect(chunks.map((c) => c.choices?.[0]?.delta?.content ?? '').join('')).toBe('hello world');
    expect(chunks.find((c) => c.choices?.[0]?.finish_reason)!.choices[0].finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)!.usage.total_tokens).toBeGreaterThan(0);
  });

  it('answers non-streaming requests, serves /v1/models, loads a script file, and records requests', async () => {
    const d = tempDir('gc-fake-');
    const file = join(d.dir, 'script.json');
    writeFileSync(file, JSON.stringify({ turns: [{ text: 'from file' }], models: ['m1', 'm2'] }));
    llm = await startFakeLlm(file);
    const models = (await (await fetch(`${llm.url}/models`)).json()) as { data: { id: string }[] };
    expect(models.data.map((m) => m.id)).toEqual(['m1', 'm2']);
    const res = (await (
      await fetch(`${llm.url}/chat/completions`, { method: 'POST', body: JSON.stringify({ messages: [{ role: 'system', content: 'S' }] }) })
    ).json()) as any;
    expect(res.choices[0].message.content).toBe('from file');
    expect(llm.requests[0]!.body.messages[0]!.content).toBe('S');
    expect(llm.remaining()).toBe(0);
    const exhausted = await fetch(`${llm.url}/chat/completions`, { method: 'POST', body: JSON.stringify({ messages: [] }) });
    expect(exhausted.status).toBe(400);
    d.cleanup();
  });

  it('returns scripted HTTP errors and honours the API key', async () => {
    llm = await startFakeLlm([{ error: { status: 429 } }, { error: { status: 500 } }, { text: 'ok' }], { apiKey: 'k-123456' });
    const post = (key: string) =>
      fetch(`${llm!.url}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: JSON.stringify({ messages: [] }),
      });
    expect((await post('wrong')).status).toBe(401);
    expect((await post('k-123456')).status).toBe(429);
    expect((await post('k-123456')).status).toBe(500);
    expect((await post('k-123456')).status).toBe(200);
  });
});

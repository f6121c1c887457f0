/**
 * Stalls and transport messages, built binary against
 * servers on 127.0.0.1: an idle LLM stream is retried then exits 4 naming
 * llm_idle_timeout_ms; a reset mid-answer says so; a 429's Retry-After is
 * honoured; an untrusted TLS certificate is named; --max-time covers the
 * controller probe.
 */
import { describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { llmFlags, runCli } from '../e2e/oneshot-cli.js';
import { cliScope } from '../helpers/cli-scope.js';

const scope = cliScope({ GNS3_COPILOT_API_KEY: 'sk-test-stalls-0000000' });

const sse = (text: string) =>
  `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n`;
const done = `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`;

async function serve(handler: (req: IncomingMessage, res: ServerResponse, n: number) => void): Promise<string> {
  let n = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => handler(req, res, ++n));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  scope.onCleanup(() => new Promise((r) => server.close(r)));
  scope.onCleanup(() => server.closeAllConnections()); // runs first
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

describe('LLM stream stalls', () => {
  it('no bytes for llm_idle_timeout_ms: retried, then exit 4 naming the setting', async () => {
    const e = scope.fresh({ GNS3_COPILOT_LLM_IDLE_TIMEOUT_MS: '1000', GNS3_COPILOT_LLM_RETRIES: '1' });
    const llm = await scope.startLlm([
      { delay_ms: 60_000, text: 'late' },
      { delay_ms: 60_000, text: 'late' },
    ]);
    const t0 = Date.now();
    const r = await runCli(['-p', 'hi', ...llmFlags(llm.url)], e.env);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^error: LLM stream stalled: no data from the LLM for 1 s \(llm_idle_timeout_ms=1000\)/);
    expect(llm.requests.filter((q) => q.purpose === null)).toHaveLength(2); // retried once
    expect(Date.now() - t0).toBeLessThan(15_000);
  });

  it('a stall after text was shown is not retried and names the timeout', async () => {
    const e = scope.fresh({ GNS3_COPILOT_LLM_IDLE_TIMEOUT_MS: '1000' });
    const llm = await scope.startLlm([{ hang: true, text: 'partial answer' }]);
    const r = await runCli(['-p', 'hi', ...llmFlags(llm.url)], e.env);
    expect(r.code).toBe(4);
    expect(r.stdout).toContain('partial answer');
    expect(r.stderr).toMatch(/llm_idle_timeout_ms=1000/);
  });

  it('a connection reset mid-answer says so', async () => {
    const e = scope.fresh();
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sse('half an ans'));
      setTimeout(() => res.socket?.destroy(), 100);
    });
    const r = await runCli(['-p', 'hi', ...llmFlags(url)], e.env);
    expect(r.code).toBe(4);
    expect(r.stdout).toContain('half an ans');
    expect(r.stderr).toMatch(
      /^error: LLM stream was cut off mid-response \(connection reset by custom at http:\/\/127\.0\.0\.1:\d+\/v1\)/m,
    );
  });

  it('429 with Retry-After waits that long before retrying', async () => {
    const e = scope.fresh({ GNS3_COPILOT_LLM_RETRY_MS: '10' });
    const at: number[] = [];
    const url = await serve((req, res, n) => {
      if (req.headers['x-copilot-purpose']) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        return res.end(sse('t') + done);
      }
      at.push(Date.now());
      if (n === 1) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '2' });
        return res.end(JSON.stringify({ error: { message: 'slow down', type: 'rate_limit_exceeded' } }));
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sse('ok') + done);
    });
    const r = await runCli(['-p', 'hi', ...llmFlags(url)], e.env);
    expect(r.code, r.stderr).toBe(0);
    expect(at.length).toBeGreaterThanOrEqual(2);
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(1900);
  });
});

describe('context budget', () => {
  it('a prompt over the context window warns visibly on stderr', async () => {
    const e = scope.fresh();
    const llm = await scope.startLlm([{ text: 'ok' }]);
    const r = await runCli(['-p', 'x'.repeat(100_000), ...llmFlags(llm.url).slice(0, -1), '8'], e.env);
    expect(r.stderr).toMatch(/^warning: this request is \d+ tokens, over the model's 8000-token context window \(context_limit\)/m);
  });
});

describe('TLS and the controller probe', () => {
  it('an untrusted certificate of the LLM endpoint is named as a TLS error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-tls-'));
    scope.onCleanup(() => rmSync(dir, { recursive: true, force: true }));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        join(dir, 'k.pem'),
        '-out',
        join(dir, 'c.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    const server = createHttpsServer({ key: readFileSync(join(dir, 'k.pem')), cert: readFileSync(join(dir, 'c.pem')) }, (_req, res) =>
      res.end('{}'),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    scope.onCleanup(() => new Promise((r) => server.close(r)));
    const e = scope.fresh();
    const r = await runCli(['-p', 'hi', ...llmFlags(`https://127.0.0.1:${(server.address() as AddressInfo).port}/v1`)], e.env);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^error: LLM provider custom at https:\/\/127\.0\.0\.1:\d+\/v1: TLS error DEPTH_ZERO_SELF_SIGNED_CERT/);
  });

  it('--max-time covers a controller that accepts and never answers', async () => {
    const sockets: import('node:net').Socket[] = [];
    const silent: TcpServer = createTcpServer((s) => void sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    scope.onCleanup(() => {
      sockets.forEach((s) => s.destroy());
      return new Promise((r) => silent.close(r));
    });
    const e = scope.fresh();
    const llm = await scope.startLlm([{ text: 'never' }]);
    const t0 = Date.now();
    const r = await runCli(
      [
        '-p',
        'hi',
        '--max-time',
        '2',
        '--project',
        'p1',
        '-s',
        `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
        ...llmFlags(llm.url),
      ],
      e.env,
    );
    expect(Date.now() - t0).toBeLessThan(12_000);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/did not answer GET \/v3\/version within --max-time \(2 s\)/);
  });

  it('--max-time with a controller that hangs after /version: exit 3 naming the call that hung', async () => {
    const waiting: ServerResponse[] = [];
    const ctrl = createServer((req: IncomingMessage, res: ServerResponse) => {
      if (req.url?.startsWith('/v3/')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      if (req.url === '/v2/version') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ version: '2.2.50', local: false }));
        return;
      }
      waiting.push(res); // every other call: accepted, never answered
    });
    await new Promise<void>((r) => ctrl.listen(0, '127.0.0.1', r));
    scope.onCleanup(() => {
      waiting.forEach((res) => res.destroy());
      return new Promise<void>((r) => ctrl.close(() => r()));
    });
    const e = scope.fresh();
    const llm = await scope.startLlm([{ text: 'never' }]);
    const url = `http://127.0.0.1:${(ctrl.address() as AddressInfo).port}`;
    const r = await runCli(['-p', 'hi', '--max-time', '2', '--project', 'p1', '-s', url, ...llmFlags(llm.url)], e.env);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/^error: the GNS3 controller did not answer GET \/v2\/projects within --max-time \(2 s\)$/m);
    expect(llm.requests.filter((q) => q.purpose === null)).toHaveLength(0);
  });
});

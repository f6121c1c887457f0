/**
 * A fake OpenAI-compatible chat-completions server for tests (real HTTP, real SSE).
 *
 * Driven by a script of turns: each POST /v1/chat/completions consumes the next turn
 * and answers with its text and/or tool calls — streamed (SSE, tool-call arguments
 * split across several chunks, a usage chunk when `stream_options.include_usage`) or
 * as one JSON body. A turn may instead be an HTTP error (401/404/429/500…), may be
 * delayed, streamed slowly, or hang until the client disconnects (abort tests).
 *
 * Auxiliary requests tagged with the `x-copilot-purpose` header (`title`, `summary`,
 * `validator`, `root_validator`) are answered from `opts.title` / `opts.summary` /
 * `opts.validator` / `opts.rootValidator`
 * without consuming a scripted turn, so scripts describe only the conversation itself.
 *
 * Every request is recorded (`requests`) so tests can assert what the model was sent:
 * the tools list, the system prompt, the (trimmed) history.
 *
 * Standalone: `node --import tsx test/fakes/llm/server.ts script.json [port]` prints
 * the base URL (`http://127.0.0.1:PORT/v1`) on stdout and serves until killed.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';

export interface FakeToolCall {
  id?: string;
  name: string;
  args: Record<string, unknown>;
}

export interface FakeTurn {
  text?: string;
  tool_calls?: FakeToolCall[];
  /** wait before the response starts */
  delay_ms?: number;
  /**
   * wait for this promise before the response starts (in-process tests): holds a
   * request exactly as long as the test needs, instead of a guessed delay
   */
  hold?: Promise<unknown>;
  /** wait between streamed chunks (slow stream) */
  chunk_delay_ms?: number;
  /** answer with this HTTP error instead */
  error?: { status: number; message?: string; code?: string };
  /** stream the text, then never finish (until the client goes away) */
  hang?: boolean;
  usage?: { prompt_tokens: number; completion_tokens: number };
  /**
   * Computes the answer from the request (in-process tests): a scripted model whose
   * answer depends on what it was sent, e.g. a verdict from a tool result. Its fields
   * replace the turn's own.
   */
  reply?: (body: FakeRequest['body']) => Omit<FakeTurn, 'reply' | 'when'>;
  /**
   * Only answers a request whose messages (as JSON) contain this text: concurrent
   * callers (parallel sub-agents) then get their own turns whatever the arrival order.
   * The first unconsumed turn that matches answers.
   */
  when?: string;
}

export interface FakeRequest {
  path: string;
  purpose: string | null;
  authorization: string | null;
  body: {
    model?: string;
    stream?: boolean;
    stream_options?: { include_usage?: boolean };
    messages: { role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string }[];
    tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
    temperature?: number;
    max_tokens?: number;
    [k: string]: unknown;
  };
  /** index of the scripted turn that answered, -1 for auxiliary/errors */
  turn: number;
}

export interface FakeLlmOptions {
  /** require `Authorization: Bearer <apiKey>`; 401 otherwise */
  apiKey?: string;
  title?: string;
  summary?: string;
  /**
   * Answers to the sub-agent Validator (`x-copilot-purpose: validator`), in order; once
   * used up (or when absent) a Validator request gets a `pass` ValidationResult.
   */
  validator?: FakeTurn[];
  /** Answers to the root Validator (`x-copilot-purpose: root_validator`), in order; then `pass` as above. */
  rootValidator?: FakeTurn[];
  port?: number;
  models?: string[];
  /** answer every completion with this id (some local servers repeat ids) */
  fixedCompletionId?: string;
}

export interface FakeLlm {
  /** base URL including /v1 */
  url: string;
  requests: FakeRequest[];
  /** scripted turns not yet consumed */
  remaining(): number;
  /** append more turns */
  push(...turns: FakeTurn[]): void;
  close(): Promise<void>;
}

function loadScript(script: FakeTurn[] | string): { turns: FakeTurn[]; opts: FakeLlmOptions } {
  if (Array.isArray(script)) return { turns: [...script], opts: {} };
  const parsed = JSON.parse(readFileSync(script, 'utf8')) as FakeTurn[] | ({ turns: FakeTurn[] } & FakeLlmOptions);
  if (Array.isArray(parsed)) return { turns: parsed, opts: {} };
  const { turns, ...opts } = parsed;
  return { turns: [...turns], opts };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, message: string, code?: string): void {
  const type = status === 401 ? 'invalid_request_error' : status === 429 ? 'rate_limit_exceeded' : 'server_error';
  sendJson(res, status, { error: { message, type, code: code ?? null, param: null } });
}

/** Split a string into n roughly equal pieces (at least one). */
function pieces(s: string, n: number): string[] {
  if (s.length === 0) return [''];
  const size = Math.max(1, Math.ceil(s.length / n));
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

function estimateTokens(body: FakeRequest['body']): number {
  return Math.ceil(JSON.stringify(body.messages ?? []).length / 4);
}

const AGENT_ID_REF = /^\{\{agent_id:([^#}]+)(?:#(\d+))?\}\}$/;

/**
 * Sub-agent ids are random, so a script cannot spell them: an argument string
 * `{{agent_id:<tool_call_id>}}` (or `…#<n>` for the n-th report of a batch) becomes
 * the `agent_id` of the report in that call's result, as the request's messages hold it.
 */
function resolveAgentIds(v: unknown, messages: FakeRequest['body']['messages']): unknown {
  if (typeof v === 'string') {
    const m = AGENT_ID_REF.exec(v);
    if (!m) return v;
    const msg = [...messages].reverse().find((x) => x.role === 'tool' && x.tool_call_id === m[1]);
    try {
      const parsed = JSON.parse(typeof msg?.content === 'string' ? msg.content : '') as unknown;
      const report = (Array.isArray(parsed) ? parsed[Number(m[2] ?? 0)] : parsed) as { agent_id?: unknown } | undefined;
      return typeof report?.agent_id === 'string' ? report.agent_id : v;
    } catch {
      return v;
    }
  }
  if (Array.isArray(v)) return v.map((x) => resolveAgentIds(x, messages));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolveAgentIds(x, messages)]));
  return v;
}

const FAKE_PASS = JSON.stringify({ verdict: 'pass', checks: [], summary: 'fake validator: the report holds' });

export async function startFakeLlm(script: FakeTurn[] | string, options: FakeLlmOptions = {}): Promise<FakeLlm> {
  const loaded = loadScript(script);
  const turns = loaded.turns;
  const opts: FakeLlmOptions = { ...loaded.opts, ...options };
  const requests: FakeRequest[] = [];
  const consumed = new Set<number>();
  const validatorTurns = [...(opts.validator ?? [])];
  const rootValidatorTurns = [...(opts.rootValidator ?? [])];
  let callSeq = 0;
  const open = new Set<ServerResponse>();

  const server = createServer((req, res) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    void handle(req, res).catch((err) => {
      if (!res.headersSent) sendError(res, 500, `fake llm crashed: ${String(err)}`);
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    const authorization = req.headers.authorization ?? null;
    if (opts.apiKey && authorization !== `Bearer ${opts.apiKey}`) {
      const raw = await readBody(req);
      if (path === '/v1/chat/completions')
        requests.push({
          path,
          purpose: (req.headers['x-copilot-purpose'] as string | undefined) ?? null,
          authorization,
          body: raw ? (JSON.parse(raw) as FakeRequest['body']) : { messages: [] },
          turn: -1,
        });
      return sendError(res, 401, 'Incorrect API key provided', 'invalid_api_key');
    }
    if (req.method === 'GET' && path === '/v1/models') {
      const ids = opts.models ?? ['fake-model'];
      return sendJson(res, 200, { object: 'list', data: ids.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake' })) });
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      await readBody(req);
      return sendError(res, 404, `Unknown path ${path}`, 'not_found');
    }
    const body = JSON.parse(await readBody(req)) as FakeRequest['body'];
    const purpose = (req.headers['x-copilot-purpose'] as string | undefined) ?? null;
    const record: FakeRequest = { path, purpose, authorization, body, turn: -1 };
    requests.push(record);

    let turn: FakeTurn;
    if (purpose === 'title') turn = { text: opts.title ?? 'Fake session title' };
    else if (purpose === 'summary') turn = { text: opts.summary ?? 'Summary of the earlier conversation (fake).' };
    else if (purpose === 'validator') turn = validatorTurns.shift() ?? { text: FAKE_PASS };
    else if (purpose === 'root_validator') turn = rootValidatorTurns.shift() ?? { text: FAKE_PASS };
    else {
      const seen = JSON.stringify(body.messages ?? []);
      const idx = turns.findIndex((t, i) => !consumed.has(i) && (t.when === undefined || seen.includes(t.when)));
      if (idx < 0) return sendError(res, 400, `fake llm: script exhausted after ${turns.length} turns`);
      consumed.add(idx);
      record.turn = idx;
      turn = turns[idx]!;
    }
    if (turn.reply) turn = { ...turn, ...turn.reply(body) };
    if (turn.delay_ms) await sleep(turn.delay_ms);
    if (turn.hold) await turn.hold;
    if (turn.error) return sendError(res, turn.error.status, turn.error.message ?? `fake error ${turn.error.status}`, turn.error.code);

    const seq = ++callSeq;
    const id = opts.fixedCompletionId ?? `chatcmpl-fake-${seq}-${randomUUID().slice(0, 8)}`;
    const model = body.model ?? 'fake-model';
    const calls = (turn.tool_calls ?? []).map((c, i) => ({
      id: c.id ?? `call_${seq}_${i}`,
      name: c.name,
      args: JSON.stringify(resolveAgentIds(c.args, body.messages ?? [])),
    }));
    const usage = turn.usage ?? {
      prompt_tokens: estimateTokens(body),
      completion_tokens: Math.ceil(((turn.text ?? '').length + calls.reduce((n, c) => n + c.args.length, 0)) / 4) + 1,
    };
    const usageObj = { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
    const finish = calls.length > 0 ? 'tool_calls' : 'stop';

    if (!body.stream) {
      return sendJson(res, 200, {
        id,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [
          {
            index: 0,
            finish_reason: finish,
            message: {
              role: 'assistant',
              content: turn.text ?? (calls.length ? null : ''),
              ...(calls.length
                ? { tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } })) }
                : {}),
            },
          },
        ],
        usage: usageObj,
      });
    }

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const created = Math.floor(Date.now() / 1000);
    const chunk = (delta: Record<string, unknown>, finish_reason: string | null = null) => ({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, finish_reason }],
    });
    let closed = false;
    res.on('close', () => (closed = true));
    const write = async (obj: unknown) => {
      if (closed) return;
      res.write(`data: ${JSON.stringify(obj)}\n\n`);
      if (turn.chunk_delay_ms) await sleep(turn.chunk_delay_ms);
    };

    await write(chunk({ role: 'assistant', content: '' }));
    if (turn.text)
      for (const p of pieces(turn.text, Math.min(8, Math.max(1, Math.ceil(turn.text.length / 4))))) await write(chunk({ content: p }));
    if (turn.hang) {
      while (!closed) await sleep(20);
      return;
    }
    for (const [index, c] of calls.entries()) {
      // First chunk carries id and name, arguments follow in several fragments,
      // exactly like real providers do.
      await write(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }));
      for (const frag of pieces(c.args, 3)) await write(chunk({ tool_calls: [{ index, function: { arguments: frag } }] }));
    }
    await write(chunk({}, finish));
    if (body.stream_options?.include_usage)
      await write({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: usageObj });
    if (!closed) res.end('data: [DONE]\n\n');
  }

  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    remaining: () => turns.length - consumed.size,
    push: (...t) => void turns.push(...t),
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of open) r.destroy();
        server.close(() => resolve());
      }),
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [file, port] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: server.ts <script.json> [port]\n');
    process.exit(2);
  }
  const fake = await startFakeLlm(file, port ? { port: Number(port) } : {});
  process.stdout.write(fake.url + '\n');
}

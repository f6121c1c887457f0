/**
 * `mcp --http` lets go of each client's MCP session when the client goes away: the real
 * HTTP server and runtime in process (its live-session count is what is measured, not
 * memory), the fake GNS3 controller, the SDK's own clients. A client that ends its session
 * (DELETE) is released at once; one that only drops its connections (what the SDK client's
 * close() does) once it has been idle for mcp_session_idle_s; one that keeps its event
 * stream open is kept however long it is quiet. The idle clock is the test's.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { McpRuntime } from '../../src/mcp/server/runtime.js';
import { startHttpServer, type RunningHttpServer } from '../../src/mcp/server/http.js';
import { settingsSchema } from '../../src/config/schema.js';
import { nullLogger } from '../../src/log.js';
import { until } from '../ui/helpers/scripted-session.js';
import { tempDir } from '../agent/helpers.js';

process.env.GNS3_COPILOT_KEYCHAIN = 'off';
const tmp = tempDir('gc-mcp-sessions-');
let fake: FakeGns3;
let rt: McpRuntime;
let server: RunningHttpServer | undefined;
let clock = 1_000_000;
const IDLE_MS = 1_000;

beforeAll(async () => {
  fake = await startFakeGns3({ api: 'v2' });
  fake.addProject({ name: 'sessions-lab' });
  fake.addNode({ name: 'R1', node_type: 'vpcs', status: 'started', project: 'sessions-lab' });
  const settings = settingsSchema.parse({ server: fake.url, project: 'sessions-lab', mode: 'lab', data_dir: tmp.dir });
  rt = await McpRuntime.create({ settings, log: nullLogger });
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(async () => {
  await rt?.close();
  await fake?.close();
  tmp.cleanup();
});

async function serve(): Promise<RunningHttpServer> {
  server = await startHttpServer(
    rt,
    { mode: 'lab_automation_assistant', policy: 'never' },
    { host: '127.0.0.1', port: 0, sessionIdleMs: IDLE_MS, now: () => clock },
  );
  return server;
}

async function sdkClient(url: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'sessions-test', version: '0' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  const r = await client.callTool({ name: 'gns3_topology_reader', arguments: {} });
  expect(r.isError).toBeFalsy();
  return { client, transport };
}

/** Lets the idle clock run (fast) until the server holds `n` sessions. */
async function clockRunsUntil(s: RunningHttpServer, n: number, what: string): Promise<void> {
  await until(
    () => {
      clock += IDLE_MS / 10;
      return s.liveSessions() === n;
    },
    5_000,
    what,
  );
}

const headers = (sid?: string) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  ...(sid ? { 'mcp-session-id': sid } : {}),
});

/** A client by hand: initialize, then an event stream (GET) that stays open until `abort`. */
async function streamingClient(url: string): Promise<{ sid: string; abort: AbortController }> {
  const init = await fetch(url, {
    method: 'POST',
    headers: headers(),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    }),
  });
  const sid = init.headers.get('mcp-session-id')!;
  await init.text();
  const note = await fetch(url, {
    method: 'POST',
    headers: headers(sid),
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await note.text();
  const abort = new AbortController();
  const stream = await fetch(url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': sid }, signal: abort.signal });
  // the headers are in: the server holds the stream open
  expect(stream.status).toBe(200);
  return { sid, abort };
}

async function listTools(url: string, sid: string): Promise<number> {
  const r = await fetch(url, {
    method: 'POST',
    headers: headers(sid),
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });
  await r.text();
  return r.status;
}

describe('mcp --http sessions', () => {
  it('releases the session of a client that went away, and of one that ended it; keeps one whose event stream is open', async () => {
    const s = await serve();
    const ended = await sdkClient(s.url);
    const gone = await sdkClient(s.url);
    const staying = await streamingClient(s.url);
    expect(s.liveSessions()).toBe(3);

    // DELETE: released at once, whatever the clock
    await ended.transport.terminateSession();
    await ended.client.close();
    await until(() => s.liveSessions() === 2, 5_000, 'the ended session released');

    // the SDK client's close(): connections dropped, nothing sent; quiet for less than the idle time: kept
    await gone.client.close();
    clock += IDLE_MS / 2;
    await new Promise((r) => setTimeout(r, IDLE_MS));
    expect(s.liveSessions()).toBe(2);
    // past the idle time: released; the client with an open event stream is not, however long the clock runs
    await clockRunsUntil(s, 1, 'the idle session released');
    clock += 100 * IDLE_MS;
    await new Promise((r) => setTimeout(r, IDLE_MS));
    expect(s.liveSessions()).toBe(1);
    expect(await listTools(s.url, staying.sid)).toBe(200);

    // its stream closed too, it goes as well
    staying.abort.abort();
    await clockRunsUntil(s, 0, 'every session released');
    // a client coming back with a released session is told to initialize again
    expect(await listTools(s.url, staying.sid)).toBe(404);
  });

  it('rounds of clients that come and go leave no session behind', async () => {
    const s = await serve();
    for (let round = 1; round <= 3; round++) {
      const clients = await Promise.all(Array.from({ length: 5 }, () => sdkClient(s.url)));
      expect(s.liveSessions()).toBe(5);
      await Promise.all(clients.map((c) => c.client.close()));
      await clockRunsUntil(s, 0, `round ${round} released`);
    }
  });
});

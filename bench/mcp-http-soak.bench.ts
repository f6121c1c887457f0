/**
 * `gns3-copilot mcp --http` over rounds of clients that come and go: each round, 20
 * clients (the SDK's own) connect, call read tools for 20 s (the topology reader and a
 * `show` on the lab's FRR router) and close the way the SDK client does — dropping their
 * connections without ending the session. After each round the server's RSS is read once
 * the round's sessions had time to be released (the server logs each release; the bench runs
 * it with `mcp_session_idle_s` 5). Goal: RSS after round 3 ≤ 1.2× RSS after round 1.
 *
 * `npm run bench -- soak`; SOAK_CLIENTS, SOAK_SECONDS, SOAK_ROUNDS change the shape;
 * SOAK_BIN runs another build (a checkout before a change, to compare).
 * Needs root and the lab packages; runs dist/ (build first).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startLab } from '../test/lab/lab.js';
import { mcpEnv, serverArgs, startHttpBinary, startMcpLab } from '../test/mcp/helpers.js';
import type { BenchTable } from './table.js';

const CLIENTS = Number(process.env.SOAK_CLIENTS ?? 20);
const SECONDS = Number(process.env.SOAK_SECONDS ?? 20);
const ROUNDS = Number(process.env.SOAK_ROUNDS ?? 3);
const IDLE_S = 5;
/**
 * After each round the bench waits this long before it reads the RSS, whatever the build does
 * (V8 gives memory back while idle, so builds compared must idle alike): the sessions of a
 * build that releases them are gone by then (at most 1.25 × IDLE_S after their client left).
 */
const SETTLE_MS = (IDLE_S * 2 + 10) * 1000;

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]) / 1024;
}

function releases(logFile: string): number {
  if (!existsSync(logFile)) return 0;
  return readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((l) => l.includes('session released')).length;
}

/** One client's round: connect (again, on a 404: MCP's answer to an expired session), call tools until `end`, go away. */
async function client(url: string, i: number, end: number, errors: string[]): Promise<number> {
  const c = new Client({ name: `soak-${i}`, version: '0' });
  await c.connect(new StreamableHTTPClientTransport(new URL(url)));
  let calls = 0;
  for (let n = 0; performance.now() < end; n++) {
    const call =
      (n + i) % 2 === 0
        ? { name: 'gns3_topology_reader', arguments: {} }
        : { name: 'execute_multiple_device_commands', arguments: { device_configs: [{ device_name: 'R1', commands: ['show version'] }] } };
    try {
      const r = (await c.callTool(call)) as { isError?: boolean; content?: { text?: string }[] };
      if (r.isError) errors.push(`${call.name}: ${r.content?.[0]?.text?.slice(0, 200) ?? 'error'}`);
      calls++;
    } catch (err) {
      errors.push(`${call.name}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  // what the SDK client's close() does: abort its streams, no DELETE
  await c.close();
  return calls;
}

export async function run(): Promise<BenchTable> {
  const lab = await startLab({ routers: ['R1'], links: [] });
  const env = await startMcpLab(lab);
  const logDir = mkdtempSync(join(tmpdir(), 'gc-soak-'));
  const logFile = join(logDir, 'server.log');
  const bin = process.env.SOAK_BIN;
  const args = serverArgs(env.fake, 'teaching', ['--http', '127.0.0.1:0']);
  if (bin) args[0] = bin;
  const server = await startHttpBinary(
    args,
    mcpEnv({ GNS3_COPILOT_MCP_SESSION_IDLE_S: String(IDLE_S), GNS3_COPILOT_LOG_FILE: logFile, GNS3_COPILOT_LOG: 'info' }),
  );
  try {
    if (!server.url) throw new Error(`mcp --http did not start: ${server.stderr}`);
    const pid = server.child.pid!;
    const rows: (string | number)[][] = [['start', '', (rssMb(pid) ?? 0).toFixed(1), '']];
    const after: number[] = [];
    const errors: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const end = performance.now() + SECONDS * 1000;
      const calls = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(server.url!, i, end, errors)));
      await new Promise((r) => setTimeout(r, SETTLE_MS));
      const want = round * CLIENTS;
      const released = releases(logFile);
      const rss = rssMb(pid);
      after.push(rss);
      rows.push([
        `round ${round}: ${CLIENTS} clients × ${SECONDS} s`,
        `${calls.reduce((a, b) => a + b, 0)} calls`,
        rss.toFixed(1),
        `${released}/${want} sessions released`,
      ]);
    }
    if (errors.length) throw new Error(`${errors.length} MCP calls failed, first: ${errors[0]}`);
    const ratio = after[after.length - 1]! / after[0]!;
    return {
      title: `mcp --http soak: ${ROUNDS} rounds of ${CLIENTS} clients that come and go (RSS of the server)`,
      columns: ['after', 'work', 'RSS MB', 'sessions'],
      rows,
      notes: [
        `RSS after round ${ROUNDS} / after round 1: ${ratio.toFixed(2)}× (goal ≤ 1.2×: ${ratio <= 1.2 ? 'met' : 'NOT met'})`,
        `Clients close like the SDK client (no DELETE); the server runs with mcp_session_idle_s ${IDLE_S}; RSS read ${SETTLE_MS / 1000} s after each round.`,
      ],
    };
  } finally {
    server.child.kill('SIGTERM');
    await env.close();
    await lab.stop();
    rmSync(logDir, { recursive: true, force: true });
  }
}

/**
 * The live lab (docs/agent.md, The live lab) on the fake v2 controller over real HTTP and its
 * real notification WebSocket, a ring of 100 routers:
 * 1. event → cache: from the controller sending a `node.updated` on the project stream until
 *    the copilot's topology cache has applied it and handed the new topology to its listeners
 *    (RUNS events; the goal is ≤ 50 ms);
 * 2. topology reads per LLM call: the controller's `GET …/nodes` during a 10-call request of a
 *    real session (real graph and SQLite, the fake LLM over HTTP) while the stream is healthy
 *    (goal 0), against `notifications: never` (a REST read before every call, as before the stream).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { settingsSchema } from '../src/config/schema.js';
import { createGns3Client } from '../src/gns3/client.js';
import { LiveTopology } from '../src/gns3/live-topology.js';
import { nullLogger } from '../src/log.js';
import { createAgentSession } from '../src/agent/session.js';
import { defineTool, type ToolDef } from '../src/tools/types.js';
import { startFakeGns3, type FakeGns3 } from '../test/fakes/gns3/server.js';
import { startFakeLlm, type FakeTurn } from '../test/fakes/llm/server.js';
import { fmtMs, median, type BenchTable } from './table.js';

const NODES = 100;
const RUNS = 200;
const CALLS = 10;
/** an LLM call's time: longer than the project's read cache (about a second), as a real model's */
const LLM_CALL_MS = 1_100;

async function waitFor(cond: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function lab(): Promise<{ fake: FakeGns3; pid: string }> {
  const fake = await startFakeGns3({ api: 'v2' });
  const pid = fake.addProject({ name: 'bench', auto_close: false });
  // routers in a ring, as the topology bench's lab
  for (let i = 1; i <= NODES; i++) fake.addNode({ name: `R${i}`, node_type: 'qemu', ports: 4, status: 'started', project: pid });
  for (let i = 1; i <= NODES; i++) fake.addLink({ a: `R${i}:e0`, b: `R${(i % NODES) + 1}:e1`, project: pid });
  return { fake, pid };
}

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

/** event → cache, in ms per event */
async function eventToCache(): Promise<number[]> {
  const { fake, pid } = await lab();
  const client = createGns3Client({ settings: settingsSchema.parse({ server: fake.url }), log: nullLogger });
  const live = new LiveTopology(await client.openProject('bench'), { policy: 'auto', log: nullLogger });
  try {
    await live.start();
    await waitFor(() => live.healthy, 'the stream');
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const node = fake.node(`R${(i % NODES) + 1}`, pid);
      node.status = node.status === 'started' ? 'stopped' : 'started';
      const applied = new Promise<number>((resolve) => {
        const off = live.onChange(() => {
          off();
          resolve(performance.now());
        });
      });
      const sent = performance.now();
      fake.notifications.emitProject(pid, 'node.updated', node);
      times.push((await applied) - sent);
    }
    return times;
  } finally {
    live.close();
    await client.close();
    await fake.close();
  }
}

const noop = defineTool({
  name: 'get_gns3_templates',
  description: 'List templates',
  risk: 'read',
  schema: z.object({}),
  run: async () => ({ status: 'success', data: '[]' }),
}) as ToolDef;

/** GET …/nodes the controller served during one 10-call request */
async function readsPerRequest(notifications: 'auto' | 'never'): Promise<number> {
  const { fake } = await lab();
  const dir = mkdtempSync(join(tmpdir(), 'gc-bench-live-'));
  const turn = (answer: string, calls: number, delay_ms: number): FakeTurn[] => [
    ...Array.from({ length: calls - 1 }, (_, i) => ({
      tool_calls: [{ id: `t${i}-${answer}`, name: 'get_gns3_templates', args: {} }],
      delay_ms,
    })),
    { text: answer, delay_ms },
  ];
  const llm = await startFakeLlm([...turn('warm', 1, 0), ...turn('measured', CALLS, LLM_CALL_MS)]);
  const settings = settingsSchema.parse({
    provider: 'custom',
    base_url: llm.url,
    model: 'fake-model',
    context_limit: 32,
    data_dir: dir,
    server: fake.url,
    project: 'bench',
    notifications,
  });
  const s = await createAgentSession({ settings, tools: [noop] });
  const reads = () => fake.requests.filter((q) => q.method === 'GET' && /\/projects\/[^/]+\/nodes$/.test(q.path)).length;
  try {
    for await (const _ of s.send('look at the lab')) void _;
    const view = (await s.lab())!;
    if (notifications === 'auto') await waitFor(() => view.status().live, 'the stream');
    const before = reads();
    for await (const _ of s.send('and now?')) void _;
    const calls = llm.requests.filter((r) => r.purpose === null).length - 1;
    if (calls !== CALLS) throw new Error(`the request made ${calls} LLM calls, not ${CALLS}`);
    return reads() - before;
  } finally {
    await s.close();
    await llm.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<BenchTable> {
  const times = await eventToCache();
  const [healthy, never] = [await readsPerRequest('auto'), await readsPerRequest('never')];
  return {
    title: `Live lab (fake v2 controller, ${NODES} nodes, WebSocket)`,
    columns: ['measure', 'value', 'goal'],
    rows: [
      [`event → cache, median of ${RUNS}`, fmtMs(median(times)), '≤ 50 ms'],
      ['event → cache, p95', fmtMs(percentile(times, 0.95)), '≤ 50 ms'],
      ['event → cache, max', fmtMs(Math.max(...times)), ''],
      [`GET …/nodes in a ${CALLS}-call request, stream healthy`, healthy, '0'],
      [`GET …/nodes in a ${CALLS}-call request, notifications never`, never, '(a REST read per call, as before the stream)'],
    ],
    notes: [
      'event → cache: the controller sends node.updated on the project stream → the cache applied it and its listeners have the new topology (one process: the fake controller and the copilot share the event loop)',
      `reads: each LLM answer takes ${LLM_CALL_MS} ms, longer than the project's ~1 s read cache; the drift check at the start and the store at the end of a request read the topology too (from the cache while the stream is healthy)`,
    ],
  };
}

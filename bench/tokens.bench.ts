/**
 * `npm run bench -- tokens`: the fixed tokens of every LLM call, per copilot mode — the
 * tool schemas, the system prompt, and the topology in it at 10/40/100/400 nodes — read
 * from what a real session sends the fake LLM over HTTP (the exact bytes), counted with
 * o200k_base, against the figures of the release before the compact schemas and topology.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { settingsSchema } from '../src/config/schema.js';
import { createAgentSession } from '../src/agent/session.js';
import { getEncoder } from '../src/agent/tokens.js';
import { startFakeLlm } from '../test/fakes/llm/server.js';
import { startFakeGns3, type FakeGns3 } from '../test/fakes/gns3/server.js';
import type { BenchTable } from './table.js';

const MODES = ['lab', 'teaching', 'inject'] as const;
const SIZES = [10, 40, 100, 400] as const;

/** Measured at the release before (tools: the same sessions; topology: the lab below, lab mode). */
const BEFORE = {
  tools: { lab: 3488, teaching: 2426, inject: 2297 },
  topology: { 10: 0, 40: 0, 100: 0, 400: 0 } as Record<number, number>,
};

/** N routers with 4 ports, a ring plus a chord from every other router; a third of them stopped. */
function seed(fake: FakeGns3, project: string, nodes: number): number {
  fake.addProject({ name: project });
  for (let i = 1; i <= nodes; i++)
    fake.addNode({ project, name: `R${i}`, node_type: 'qemu', template_name: 'FRR', ports: 4, status: i % 3 ? 'started' : 'stopped' });
  for (let i = 1; i <= nodes; i++) fake.addLink({ project, a: `R${i}:e0`, b: `R${(i % nodes) + 1}:e1` });
  let chords = 0;
  for (let i = 1; i + nodes / 2 <= nodes; i += 2, chords++) fake.addLink({ project, a: `R${i}:e2`, b: `R${i + nodes / 2}:e3` });
  return nodes + chords;
}

/** The first request of a one-message turn: its system prompt and its tools, as sent. */
async function firstCall(dir: string, mode: string, server?: string, project?: string) {
  const llm = await startFakeLlm([{ text: 'ok' }]);
  const settings = settingsSchema.parse({
    provider: 'custom',
    base_url: llm.url,
    model: 'fake-model',
    context_limit: 200,
    data_dir: dir,
    mode,
    ...(server ? { server, project } : {}),
  });
  const s = await createAgentSession({ settings });
  try {
    for await (const _ of s.send('hi'));
    const body = llm.requests.find((r) => r.purpose === null)!.body;
    return { system: String(body.messages[0]!.content), tools: JSON.stringify(body.tools ?? []) };
  } finally {
    await s.close();
    await llm.close();
  }
}

export async function run(): Promise<BenchTable> {
  process.env.GNS3_COPILOT_KEYCHAIN = 'off';
  // exact counts: the session's bounded counter estimates a long text once counting it takes too long
  const enc = await getEncoder('o200k_base');
  const counter = { text: (s: string) => enc.count(s) };
  const dir = mkdtempSync(join(tmpdir(), 'gc-bench-tokens-'));
  const rows: (string | number)[][] = [];
  const fake = await startFakeGns3({ api: 'v2' });
  try {
    const links = new Map(SIZES.map((n) => [n, seed(fake, `lab${n}`, n)]));
    for (const mode of MODES) {
      const bare = await firstCall(dir, mode);
      const tools = counter.text(bare.tools);
      const system = counter.text(bare.system);
      rows.push([mode, 'tools', BEFORE.tools[mode], tools, `${(BEFORE.tools[mode] / tools).toFixed(2)}x`]);
      rows.push([mode, 'system prompt (no topology)', '', system, '']);
      if (mode !== 'lab') continue;
      for (const n of SIZES) {
        const withTopo = await firstCall(dir, mode, fake.url, `lab${n}`);
        const topo = counter.text(withTopo.system) - system;
        const l = links.get(n)!;
        const before = BEFORE.topology[n] ?? 0;
        rows.push([
          mode,
          `topology, ${n} nodes / ${l} links (${(topo / (n + l)).toFixed(1)} per node+link)`,
          before || '',
          topo,
          before ? `${(before / topo).toFixed(2)}x` : '',
        ]);
      }
    }
  } finally {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    title: 'Fixed tokens per LLM call (o200k_base, the bytes a session sends the fake LLM)',
    columns: ['mode', 'part', 'before', 'now', 'before/now'],
    rows,
    notes: [
      'tools: all of the mode’s tool schemas (flat agent mode), exact o200k counts; before = the release before the compact schemas (the session’s own bounded count, which estimates long runs without spaces, said 4,230 / 2,917 / 2,824 then). Lab mode has gained apply_config_template (142 tokens) since.',
      'topology: the system prompt with the project minus without it, on the fake controller (FRR routers, 4 ports, ring + chords).',
    ],
  };
}

/**
 * `npm run bench -- tokens`: the fixed tokens of every LLM call, per copilot mode — the
 * tool schemas, the system prompt, and the topology in it at 10/40/100/400 nodes — read
 * from what a real session sends the fake LLM over HTTP (the exact bytes), counted with
 * o200k_base, against the figures of the release before the compact schemas and topology; and
 * what one 60,000-line `show` costs in the history, whole against cut to tool_result_tokens.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { settingsSchema } from '../src/config/schema.js';
import { createAgentSession } from '../src/agent/session.js';
import { getEncoder } from '../src/agent/tokens.js';
import { startFakeLlm } from '../test/fakes/llm/server.js';
import { startFakeGns3 } from '../test/fakes/gns3/server.js';
import { seedRouterRing } from '../test/fakes/gns3/lab-seed.js';
import { telnetNode } from '../test/fakes/gns3/nodes.js';
import { fakeConsole } from '../test/devices/helpers.js';
import { executeMultipleDeviceCommands } from '../src/tools/devices/commands.js';
import type { ToolDef } from '../src/tools/types.js';
import type { BenchTable } from './table.js';

const MODES = ['lab', 'teaching', 'inject'] as const;
const SIZES = [10, 40, 100, 400] as const;

/** Measured at the release before (tools: the same sessions; topology: the same labs in lab mode, before the compact topology text). */
const BEFORE = {
  tools: { lab: 3488, teaching: 2426, inject: 2297 },
  topology: { 10: 401, 40: 1477, 100: 3637, 400: 14437 } as Record<number, number>,
};

/** The first request of a one-message turn: its system prompt and its tools, as sent. */
async function firstCall(dir: string, mode: string, server?: string, project?: string, extra: Record<string, unknown> = {}) {
  const llm = await startFakeLlm([{ text: 'ok' }]);
  const settings = settingsSchema.parse({
    provider: 'custom',
    base_url: llm.url,
    model: 'fake-model',
    context_limit: 200,
    data_dir: dir,
    mode,
    ...(server ? { server, project } : {}),
    ...extra,
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

/**
 * A 60,000-line `show` from a device console (a scripted telnet console behind the fake
 * controller, the real device tool): its tokens whole (the tool_end event's result) against what
 * the next LLM call carried of it in the history (cut to tool_result_tokens, default 2000).
 */
async function longShow(dir: string, count: (s: string) => number): Promise<{ whole: number; cut: number }> {
  const lines = Array.from(
    { length: 60_000 },
    (_, i) => `O>* 10.${(i >> 8) & 255}.${i & 255}.0/24 [110/20] via 10.0.1.2, eth0, weight 1, 00:0${i % 10}:12`,
  );
  const con = await fakeConsole('R1# ', (line) => (line.startsWith('show ip route') ? lines.join('\r\n') + '\r\n' : ''));
  const fake = await startFakeGns3({ api: 'v2' });
  fake.addProject({ name: 'big' });
  fake.addNode(telnetNode('R1', con.port, { tags: ['device_type:cisco_ios_telnet'], project: 'big' }));
  const llm = await startFakeLlm([
    {
      tool_calls: [
        {
          id: 'big',
          name: 'execute_multiple_device_commands',
          args: { device_configs: [{ device_name: 'R1', commands: ['show ip route'] }] },
        },
      ],
    },
    { text: 'ok' },
  ]);
  const settings = settingsSchema.parse({
    provider: 'custom',
    base_url: llm.url,
    model: 'fake-model',
    context_limit: 200,
    data_dir: dir,
    mode: 'lab',
    server: fake.url,
    project: 'big',
    command_timeout_ms: 60_000,
  });
  const s = await createAgentSession({ settings, tools: [executeMultipleDeviceCommands] as ToolDef[] });
  try {
    let whole = '';
    for await (const e of s.send('routes of R1')) if (e.type === 'tool_end' && e.id === 'big') whole = e.output;
    const second = llm.requests.filter((r) => r.purpose === null)[1]!;
    const inHistory = second.body.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'big')?.content;
    if (!whole || typeof inHistory !== 'string') throw new Error('the 60,000-line show did not reach the history');
    return { whole: count(whole), cut: count(inHistory) };
  } finally {
    await s.close();
    await llm.close();
    await fake.close();
    await con.close();
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
    const links = new Map(SIZES.map((n) => [n, seedRouterRing(fake, `lab${n}`, n)]));
    for (const mode of MODES) {
      const bare = await firstCall(dir, mode);
      const tools = counter.text(bare.tools);
      const system = counter.text(bare.system);
      rows.push([mode, 'tools', BEFORE.tools[mode], tools, `${(BEFORE.tools[mode] / tools).toFixed(2)}x`]);
      rows.push([mode, 'system prompt (no topology)', '', system, '']);
      if (mode !== 'lab') continue;
      for (const n of SIZES) {
        const l = links.get(n)!;
        // above topology_inline_max (150) the prompt carries a summary; 400 is also shown listed whole
        const variants: [string, Record<string, unknown>][] = [['', {}]];
        if (n > 150) variants.push([', topology_inline_max 400', { topology_inline_max: 400 }]);
        for (const [label, extra] of variants) {
          const withTopo = await firstCall(dir, mode, fake.url, `lab${n}`, extra);
          const topo = counter.text(withTopo.system) - system;
          const before = BEFORE.topology[n] ?? 0;
          const shape = n > 150 && !label ? 'summary' : `${(topo / (n + l)).toFixed(1)} per node+link`;
          rows.push([mode, `topology, ${n} nodes / ${l} links${label} (${shape})`, before, topo, `${(before / topo).toFixed(2)}x`]);
        }
      }
    }
    const big = await longShow(dir, counter.text);
    rows.push([
      'lab',
      'a 60,000-line show in the history (tool_result_tokens 2000)',
      big.whole,
      big.cut,
      `${(big.whole / big.cut).toFixed(0)}x`,
    ]);
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
      'a 60,000-line show: before = the whole result (the tool_end event carries it; the release before cut it at 12,000 characters per command and lost its middle), now = what the next call carried of it: head and tail with a note naming the stored whole, paged with read_context_ref.',
      'topology: the system prompt with the project minus without it, on the fake controller (FRR routers, 4 ports, ring + chords, a third stopped); before = the release before the compact topology text (about 16 tokens per node+link). Above topology_inline_max (default 150) nodes the prompt carries a summary.',
    ],
  };
}

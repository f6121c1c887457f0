/**
 * Session store benches: how the cost of a turn and the bytes it adds
 * to sessions.db change as a session grows (turn 10 vs turn 1,000), resuming a
 * 1,000-turn session in the built binary (pty) to its first prompt, and
 * `sessions list` over 10,000 sessions.
 *
 * Turns run through the real graph and the real SQLite store, with an in-process
 * model stub and a no-op tool (one tool call + an answer per turn), so a turn's
 * time is agent overhead only: LangGraph steps, checkpoints, context prep.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AIMessageChunk } from '@langchain/core/messages';
import type { BenchTable } from './table.js';
import { fmtMs, median } from './table.js';
import { TokenCounter } from '../src/agent/tokens.js';
import { SessionStore } from '../src/sessions/store.js';
import { stubGraph, stubModel, stubToolCall } from '../test/helpers/stub-graph.js';
import { settingsSchema } from '../src/config/schema.js';

const TURNS = Number(process.env.GCL_STORE_BENCH_TURNS ?? 1000);
const words = (n: number, seed: number) => Array.from({ length: n }, (_, i) => `w${(i * 7 + seed) % 997}`).join(' ');

const usedBytes = (store: SessionStore) =>
  ((store.db.pragma('page_count', { simple: true }) as number) - (store.db.pragma('freelist_count', { simple: true }) as number)) *
  (store.db.pragma('page_size', { simple: true }) as number);

/** Runs `turns` turns of one session into dataDir; per-turn wall time and bytes added. */
async function grow(dataDir: string, turns: number): Promise<{ id: string; ms: number[]; bytes: number[] }> {
  const store = await SessionStore.open(dataDir);
  // each turn: one tool call, then a ~150-word answer
  const model = stubModel((n) =>
    n % 2 === 0 ? stubToolCall(`c${n}`, 'Checking R1.') : new AIMessageChunk({ content: `Answer ${n}: ${words(150, n)}` }),
  );
  const counter = await TokenCounter.create('cl100k_base');
  const saver = store.saver as typeof store.saver & { tokens?: unknown; flushTokenCounts?: (id: string) => void };
  if (typeof saver.flushTokenCounts === 'function') saver.tokens = counter;
  const { send } = stubGraph(store.saver, {
    model,
    counter,
    limitK: 128,
    toolOutput: JSON.stringify([{ device_name: 'R1', status: 'success', output: words(120, 5) }]),
  });
  const row = store.create({ copilot_mode: 'teaching_assistant', agent_mode: 'flat' });
  store.setTitle(row.id, 'store bench');
  const ms: number[] = [];
  const bytes: number[] = [];
  for (let t = 0; t < turns; t++) {
    const b0 = usedBytes(store);
    const t0 = performance.now();
    const final = await send(row.id, `question ${t}: ${words(30, t)}`);
    // what the session does after each request
    store.recordRequest(row.id, { message_count: final?.messages?.length ?? 0, llm_calls: 2, input_tokens: 0, output_tokens: 0 });
    store.pruneCheckpoints(row.id);
    saver.flushTokenCounts?.(row.id);
    ms.push(performance.now() - t0);
    bytes.push(usedBytes(store) - b0);
  }
  store.close();
  return { id: row.id, ms, bytes };
}

const around = (xs: number[], at: number, w = 5) => xs.slice(Math.max(0, at - w), at + w);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function resumeInPty(home: string, sessionId: string, runs: number): Promise<{ fresh: number[]; resumed: number[] }> {
  const { PtyTui, binaryEnv } = await import('./ui.bench.js');
  const { startFakeGns3 } = await import('../test/fakes/gns3/server.js');
  const gns3 = await startFakeGns3({ api: 'v2' });
  gns3.addProject({ name: 'bench' });
  const fresh: number[] = [];
  const resumed: number[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      for (const [args, out] of [
        [[], fresh],
        [['-r', sessionId], resumed],
      ] as const) {
        const t0 = performance.now();
        const tui = new PtyTui(['--server', gns3.url, '--project', 'bench', ...args], binaryEnv(home, 'http://127.0.0.1:9/v1'));
        try {
          const at = await tui.waitFor('Ask about your lab', 0, 60_000);
          if (args.length) await tui.waitFor('Resumed session', 0, 10_000).catch(() => at);
          out.push(performance.now() - t0);
        } finally {
          await tui.close();
        }
      }
    }
  } finally {
    await gns3.close();
  }
  return { fresh, resumed };
}

async function listRows(): Promise<(string | number)[][]> {
  const dir = mkdtempSync(join(tmpdir(), 'gc-bench-list-'));
  try {
    const store = await SessionStore.open(dir);
    store.db.transaction(() => {
      for (let i = 0; i < 10_000; i++) {
        const r = store.create({ copilot_mode: 'teaching_assistant', agent_mode: 'flat', project_name: `lab${i % 37}` });
        store.setTitle(r.id, `session ${i}`);
      }
    })();
    store.close();
    const { sessionsCommand } = await import('../src/commands/sessions.js');
    const settings = settingsSchema.parse({ data_dir: dir });
    const write = process.stdout.write.bind(process.stdout);
    const xs: number[] = [];
    for (let k = 0; k < 20; k++) {
      process.stdout.write = () => true;
      const t0 = performance.now();
      try {
        await sessionsCommand('list', [], {}, settings);
      } finally {
        process.stdout.write = write;
      }
      xs.push(performance.now() - t0);
    }
    return [['`sessions list` with 10,000 sessions (open + query + table)', '10,000 sessions', fmtMs(median(xs)), '≤ 50 ms']];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<BenchTable> {
  const home = mkdtempSync(join(tmpdir(), 'gc-bench-store-'));
  try {
    const dataDir = join(home, 'data', 'gns3-copilot');
    mkdirSync(dataDir, { recursive: true });
    const t0 = performance.now();
    const g = await grow(dataDir, TURNS);
    const growMs = performance.now() - t0;
    const last = TURNS - 6;
    const ms10 = median(around(g.ms, 10));
    const msN = median(around(g.ms, last));
    const b10 = mean(around(g.bytes, 10, 10));
    const bN = mean(around(g.bytes, last, 10));
    const rows: (string | number)[][] = [
      [`per-turn agent overhead, turn 10 vs turn ${TURNS}`, `${fmtMs(ms10)} → ${fmtMs(msN)}`, `${(msN / ms10).toFixed(2)}×`, '≤ 1.2×'],
      [
        `bytes added to sessions.db per turn, turn 10 vs turn ${TURNS}`,
        `${Math.round(b10)} B → ${Math.round(bN)} B`,
        `${(bN / b10).toFixed(2)}×`,
        '≤ 1.2×',
      ],
      [`${TURNS} turns in total`, `${g.ms.length} turns`, fmtMs(growMs), '—'],
    ];
    if (process.env.GCL_STORE_BENCH_PTY !== '0') {
      const { execFileSync } = await import('node:child_process');
      const root = new URL('..', import.meta.url).pathname;
      execFileSync(process.execPath, [join(root, 'node_modules/tsup/dist/cli-default.js')], {
        cwd: root,
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      const r = await resumeInPty(home, g.id, 3);
      const f = median(r.fresh);
      const s = median(r.resumed);
      rows.push([
        `binary (pty): resume a ${TURNS}-turn session to first prompt`,
        `${fmtMs(s)} (fresh start ${fmtMs(f)})`,
        `${s >= f ? '+' : '−'}${fmtMs(Math.abs(s - f))}`,
        '≤ 300 ms over a fresh start',
      ]);
    }
    rows.push(...(await listRows()));
    return {
      title: 'session store',
      columns: ['measure', 'size', 'value', 'target'],
      rows,
      notes: [
        'A turn = user message, one tool call (no-op tool), one ~150-word answer; in-process model stub, so the time is graph + checkpoint + context prep + store bookkeeping.',
        'Bytes = used pages (page_count − freelist_count) × page_size, after the per-request checkpoint pruning; means over 20 turns.',
      ],
    };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

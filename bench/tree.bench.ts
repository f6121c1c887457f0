/**
 * Sub-agent tree benches (issue 9):
 * 1. overhead of one child spawn + report: the `agent` tool's duration through the
 *    real session (graph, SQLite, fake LLM over HTTP) minus the child's one LLM round
 *    trip measured alone — what is left is brief, registration, thread, report;
 * 2. one budget transaction (BEGIN IMMEDIATE reserve, book) on a real WAL SQLite file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import type { BenchTable } from './table.js';
import { fmtMs, median } from './table.js';
import { startFakeLlm, type FakeTurn } from '../test/fakes/llm/server.js';
import { settingsSchema } from '../src/config/schema.js';
import { createAgentSession } from '../src/agent/session.js';
import { TreeStore } from '../src/sessions/tree-store.js';
import { BudgetLedger } from '../src/agent/tree/ledger.js';
import { DEFAULT_BUDGET } from '../src/agent/tree/budget.js';
import { nullLogger } from '../src/log.js';

process.env.GNS3_COPILOT_KEYCHAIN = 'off';

async function spawnRows(): Promise<(string | number)[][]> {
  const runs = 15;
  const dir = mkdtempSync(join(tmpdir(), 'gc-bench-tree-'));
  const script: FakeTurn[] = [];
  for (let i = 0; i < runs; i++) script.push({ tool_calls: [{ id: `a${i}`, name: 'agent', args: { task_brief: { goal: `check R${i}` } } }] }, { text: `report ${i}` }, { text: `answer ${i}` });
  const llm = await startFakeLlm(script);
  const rows: (string | number)[][] = [];
  try {
    const settings = settingsSchema.parse({ provider: 'custom', base_url: llm.url, model: 'fake-model', context_limit: 32, data_dir: dir, model_prices: { 'fake-model': { input: 0, output: 0 } } });
    const agentMs: number[] = [];
    const childLlmMs: number[] = [];
    // one session, one request per child: steady state (model client, token counter, caches warm)
    const s = await createAgentSession({ settings, tools: [], env: { AGENT_MODE: 'recursive' }, log: nullLogger });
    for (let i = 0; i < runs; i++) for await (const e of s.send(`run ${i}`)) if (e.type === 'tool_end' && e.id === `a${i}`) agentMs.push(e.duration_ms);
    await s.close();
    // the child's one LLM call alone: the same fake server, a similar request
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      const res = await fetch(`${llm.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-copilot-purpose': 'summary' },
        body: JSON.stringify({ model: 'fake-model', stream: true, messages: [{ role: 'system', content: 'x'.repeat(4000) }, { role: 'user', content: 'brief' }] }),
      });
      await res.text();
      childLlmMs.push(performance.now() - t0);
    }
    const a = median(agentMs.slice(2));
    const l = median(childLlmMs.slice(2));
    rows.push(['agent tool, one child (incl. its 1 fake-LLM call)', fmtMs(a), '—']);
    rows.push(['one fake-LLM round trip alone', fmtMs(l), '—']);
    rows.push(['child spawn + report overhead', fmtMs(Math.max(0, a - l)), '≤ 20 ms']);
  } finally {
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

function ledgerRows(): (string | number)[][] {
  const dir = mkdtempSync(join(tmpdir(), 'gc-bench-ledger-'));
  const db = new Sqlite(join(dir, 'sessions.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  new TreeStore(db);
  BudgetLedger.init(db, 'root');
  const ledger = new BudgetLedger(db, 'root', { ...DEFAULT_BUDGET, max_llm_calls: 1_000_000, max_total_tokens: 1e12 }, true);
  const n = 2000;
  const reserve: number[] = [];
  const book: number[] = [];
  for (let i = 0; i < n; i++) {
    let t0 = performance.now();
    ledger.reserveCall({ root: false, final: false });
    reserve.push(performance.now() - t0);
    t0 = performance.now();
    ledger.book(100, 0.0001);
    book.push(performance.now() - t0);
  }
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return [
    ['budget reserve (BEGIN IMMEDIATE, WAL file)', fmtMs(median(reserve)), '≤ 1 ms'],
    ['budget book (BEGIN IMMEDIATE, WAL file)', fmtMs(median(book)), '≤ 1 ms'],
  ];
}

export async function run(): Promise<BenchTable> {
  return {
    title: 'Sub-agent tree',
    columns: ['what', 'median', 'goal'],
    rows: [...(await spawnRows()), ...ledgerRows()],
  };
}

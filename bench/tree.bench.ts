/**
 * Sub-agent tree benches:
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
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { MessageLog } from '../src/sessions/message-log.js';
import { trajectoryOf } from '../src/agent/tree/trajectory.js';
import { buildReport } from '../src/agent/tree/report.js';
import { precheck, precheckVerdict } from '../src/agent/tree/validation.js';
import { TreeEngine } from '../src/agent/tree/engine.js';
import { recursivePolicy } from '../src/agent/tree/policy.js';
import type { RunControl } from '../src/agent/graph-deps.js';
import { RequestCounters } from '../src/agent/request-counters.js';

process.env.GNS3_COPILOT_KEYCHAIN = 'off';

async function spawnRows(): Promise<(string | number)[][]> {
  const runs = 15;
  const dir = mkdtempSync(join(tmpdir(), 'gc-bench-tree-'));
  const script: FakeTurn[] = [];
  for (let i = 0; i < runs; i++)
    script.push(
      { tool_calls: [{ id: `a${i}`, name: 'agent', args: { task_brief: { goal: `check R${i}` } } }] },
      { text: `report ${i}` },
      { text: `answer ${i}` },
    );
  for (let i = 0; i < runs; i++) script.push({ text: `plain ${i}` });
  const llm = await startFakeLlm(script);
  const rows: (string | number)[][] = [];
  try {
    const settings = settingsSchema.parse({
      provider: 'custom',
      base_url: llm.url,
      model: 'fake-model',
      context_limit: 32,
      data_dir: dir,
      model_prices: { 'fake-model': { input: 0, output: 0 } },
    });
    const agentMs: number[] = [];
    const childLlmMs: number[] = [];
    // one session, one request per child: steady state (model client, token counter, caches warm)
    const s = await createAgentSession({ settings: { ...settings, agent_mode: 'recursive' }, tools: [], log: nullLogger });
    for (let i = 0; i < runs; i++)
      for await (const e of s.send(`run ${i}`)) if (e.type === 'tool_end' && e.id === `a${i}`) agentMs.push(e.duration_ms);
    // baseline: a whole graph run with one LLM call (what a child is), as a root request
    const plainMs: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      for await (const _ of s.send(`plain ${i}`)) void _;
      plainMs.push(performance.now() - t0);
    }
    await s.close();
    // the child's one LLM call alone: the same fake server, a similar request
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      const res = await fetch(`${llm.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-copilot-purpose': 'summary' },
        body: JSON.stringify({
          model: 'fake-model',
          stream: true,
          messages: [
            { role: 'system', content: 'x'.repeat(4000) },
            { role: 'user', content: 'brief' },
          ],
        }),
      });
      await res.text();
      childLlmMs.push(performance.now() - t0);
    }
    const a = median(agentMs.slice(2));
    const l = median(childLlmMs.slice(2));
    rows.push(['agent tool, one child (incl. its 1 fake-LLM call)', fmtMs(a), '—']);
    const p = median(plainMs.slice(2));
    rows.push(['one fake-LLM round trip alone (raw HTTP)', fmtMs(l), '—']);
    rows.push(['a root request with one LLM call (for comparison)', fmtMs(p), '—']);
  } finally {
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

/** The engine's own work per child (brief, registration, signals, report, finish), the child's graph run stubbed. */
async function engineRows(): Promise<(string | number)[][]> {
  const dir = mkdtempSync(join(tmpdir(), 'gc-bench-engine-'));
  const db = new Sqlite(join(dir, 'sessions.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const trees = new TreeStore(db);
  const root: RunControl = {
    emit: () => undefined,
    signal: new AbortController().signal,
    approvalBlocked: 0,
    counters: new RequestCounters(),
  };
  const TOOLS = ['execute_multiple_device_commands', 'agent'];
  const engineFor = (rootId: string) =>
    new TreeEngine({
      policy: recursivePolicy,
      trees,
      rootId,
      session: { mode: 'lab_automation_assistant', current: root },
      registry: { get: (t) => (TOOLS.includes(t) ? t : undefined), forMode: () => TOOLS.map((name) => ({ name })) },
      schedule: { child_execution_mode: 'sequential', max_parallel_children: 2 },
      runChild: async (c) => ({
        messages: [new HumanMessage(c.prompt), new AIMessage({ content: 'R1: OSPF full', id: 'x' })],
        stop: 'done',
        llm_calls: 1,
        input_tokens: 100,
        output_tokens: 10,
      }),
      threadMessages: async () => [],
    });
  const xs: number[] = [];
  for (let i = 0; i < 300; i++) {
    // a new root each time: a parent's quota of children is spent after a few
    const engine = engineFor(`r${i}`);
    const t0 = performance.now();
    await engine.delegate([{ kind: 'brief', brief: { goal: 'verify OSPF on R1', constraints: ['read-only'] } }], {});
    xs.push(performance.now() - t0);
  }
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return [['child spawn + report overhead (engine, child run stubbed)', fmtMs(median(xs.slice(20))), '≤ 20 ms']];
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
    ledger.reserveCall({ root: false });
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

/**
 * The Validator's deterministic part per child: its trajectory read back from a real
 * SQLite file (20 tool calls with 2 KB results, one controller rename), paired and
 * pre-checked.
 */
function validationRows(): (string | number)[][] {
  const dir = mkdtempSync(join(tmpdir(), 'gc-bench-validate-'));
  const db = new Sqlite(join(dir, 'sessions.sqlite'));
  db.pragma('journal_mode = WAL');
  const log = new MessageLog(db);
  const msgs: BaseMessage[] = [new HumanMessage('brief')];
  for (let i = 0; i < 20; i++) {
    const id = `c${i}`;
    const create = i === 0;
    msgs.push(
      new AIMessage({
        content: '',
        id: `ai${i}`,
        tool_calls: [
          create
            ? { id, name: 'create_gns3_node', args: { nodes: [{ template: 'VPCS', name: 'TREEa' }] }, type: 'tool_call' }
            : {
                id,
                name: 'execute_multiple_device_commands',
                args: { device_configs: [{ device_name: `R${i}`, commands: ['show ip ospf neighbor'] }] },
                type: 'tool_call',
              },
        ],
      }),
      new ToolMessage({
        tool_call_id: id,
        name: create ? 'create_gns3_node' : 'execute_multiple_device_commands',
        content: create
          ? JSON.stringify({ status: 'success', results: [{ status: 'success', node_id: 'n1', name: 'TREEa1', requested_name: 'TREEa' }] })
          : JSON.stringify([
              { device_name: `R${i}`, status: 'success', output: 'Neighbor ID     Pri State  Dead Time Address Interface\n'.repeat(40) },
            ]),
      }),
    );
  }
  msgs.push(new AIMessage({ content: 'Created TREEa; OSPF on R1..R19 is Full.', id: 'final' }));
  log.append('child', 0, msgs);
  const brief = { goal: 'create TREEa and check OSPF', constraints: [], expected_report: 'result, evidence, open issues', refs: [] };
  const xs: number[] = [];
  for (let i = 0; i < 200; i++) {
    const t0 = performance.now();
    const trajectory = trajectoryOf(new MessageLog(db).read('child').messages);
    const report = buildReport({ agent_id: 'child', depth: 1, goal: brief.goal, messages: msgs, from: 0, stop: 'done' });
    precheckVerdict(precheck({ brief, report, trajectory, defaultExpected: true }));
    xs.push(performance.now() - t0);
  }
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return [['deterministic validation per child (read back from SQLite, 20 calls, pre-checks)', fmtMs(median(xs)), '≤ 5 ms']];
}

export async function run(): Promise<BenchTable> {
  return {
    title: 'Sub-agent tree',
    columns: ['what', 'median', 'goal'],
    rows: [...(await spawnRows()), ...(await engineRows()), ...ledgerRows(), ...validationRows()],
  };
}

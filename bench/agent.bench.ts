/**
 * Agent core benches:
 * 1. context preparation per turn at 1k messages / ~100k tokens — cold (first
 *    count) and warm (per-message token cache), fitting and trimming;
 * 2. agent overhead per iteration excluding LLM and tools: the real graph with the
 *    real SQLite checkpointer, an in-process model stub that answers instantly and
 *    a no-op tool, so what is left is graph + checkpoint + context + dispatch.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { BenchTable } from './table.js';
import { fmtMs, median } from './table.js';
import { prepareContext } from '../src/agent/context.js';
import { TokenCounter } from '../src/agent/tokens.js';
import { SessionStore } from '../src/sessions/store.js';
import { stubGraph, stubModel, stubToolCall } from '../test/helpers/stub-graph.js';

const words = (n: number, seed: number) => Array.from({ length: n }, (_, i) => `w${(i * 7 + seed) % 997}`).join(' ');

function bigHistory(messages: number): BaseMessage[] {
  const out: BaseMessage[] = [];
  let i = 0;
  while (out.length < messages - 1) {
    out.push(new HumanMessage({ content: `question ${i} ${words(50, i)}`, id: `h${i}` }));
    out.push(
      new AIMessage({
        content: '',
        id: `a${i}`,
        tool_calls: [
          {
            id: `t${i}`,
            name: 'execute_multiple_device_commands',
            args: { device_configs: [{ device_name: 'R1', commands: ['show ip route'] }] },
          },
        ],
      }),
    );
    out.push(new ToolMessage({ content: words(90, i), tool_call_id: `t${i}`, id: `tm${i}` }));
    out.push(new AIMessage({ content: `answer ${i} ${words(50, i + 1)}`, id: `r${i}` }));
    i++;
  }
  out.push(new HumanMessage({ content: 'latest question', id: 'latest' }));
  return out.slice(-messages);
}

async function timeIt(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  const xs: number[] = [];
  for (let k = 0; k < n; k++) {
    const t0 = performance.now();
    await fn();
    xs.push(performance.now() - t0);
  }
  return xs;
}

async function contextRows(): Promise<(string | number)[][]> {
  const history = bigHistory(1000);
  const rows: (string | number)[][] = [];
  const cold = await TokenCounter.create('cl100k_base');
  const t0 = performance.now();
  const first = await prepareContext(
    { system: 'system prompt', history, summary: null, toolsTokens: 1500 },
    { limitK: 200, strategy: 'balanced', counter: cold },
  );
  const coldMs = performance.now() - t0;
  rows.push(['context prep, cold (counts every message)', `${history.length} msgs / ${first.tokens} tok`, fmtMs(coldMs), '—']);
  for (const [label, limitK] of [
    ['context prep, warm, fits (200k window)', 200],
    ['context prep, warm, trims (64k window)', 64],
  ] as const) {
    const xs = await timeIt(50, () =>
      prepareContext(
        { system: 'system prompt', history, summary: null, toolsTokens: 1500 },
        { limitK, strategy: 'balanced', counter: cold },
      ),
    );
    const plan = await prepareContext(
      { system: 'system prompt', history, summary: null, toolsTokens: 1500 },
      { limitK, strategy: 'balanced', counter: cold },
    );
    rows.push([label, `${plan.messages.length} msgs sent, ${plan.trimmed} trimmed`, fmtMs(median(xs)), '≤ 10 ms']);
  }
  // a new turn = 2 new messages on top of a cached history
  const grown = [...history, new AIMessage({ content: words(50, 3), id: 'n1' }), new HumanMessage({ content: 'next', id: 'n2' })];
  const xs = await timeIt(20, () =>
    prepareContext(
      { system: 'system prompt', history: grown, summary: null, toolsTokens: 1500 },
      { limitK: 64, strategy: 'balanced', counter: cold },
    ),
  );
  rows.push(['context prep, next turn (2 new msgs)', `${grown.length} msgs`, fmtMs(median(xs)), '≤ 10 ms']);
  return rows;
}

async function overheadRows(): Promise<(string | number)[][]> {
  const dir = mkdtempSync(join(tmpdir(), 'gc-bench-'));
  const store = await SessionStore.open(dir);
  const ITER = 50;
  // `ITER` tool rounds, then a final text
  const model = stubModel((n) => (n % (ITER + 1) < ITER ? stubToolCall(`c${n}`) : new AIMessageChunk({ content: 'done' })));
  const { send } = stubGraph(store.saver, { model, counter: await TokenCounter.create('cl100k_base'), limitK: 128 });
  const rows: (string | number)[][] = [];
  for (const round of [1, 2]) {
    let events = 0;
    const t0 = performance.now();
    await send(`bench-${round}`, 'go', { maxIterations: 100, emit: () => void events++ });
    const ms = performance.now() - t0;
    rows.push([
      `agent overhead per iteration (run ${round}, SQLite checkpoints)`,
      `${ITER} tool rounds + answer, ${events} events`,
      fmtMs(ms / (ITER + 1)),
      '—',
    ]);
  }
  store.close();
  rmSync(dir, { recursive: true, force: true });
  return rows;
}

export async function run(): Promise<BenchTable> {
  return {
    title: 'agent core',
    columns: ['measure', 'size', 'median', 'target'],
    rows: [...(await contextRows()), ...(await overheadRows())],
    notes: [
      'Context prep = system prompt + tool-schema budget + unit grouping + trimming (no summary call).',
      'Overhead excludes LLM and tool time: in-process model stub, no-op tool; includes LangGraph steps, SQLite checkpoint writes, context prep, dispatch.',
    ],
  };
}

/**
 * One of two processes racing on the same trees' budgets (test/agent/tree/budget.test.ts):
 * for each root id, reserve LLM calls and book a token each until refused; prints the
 * number of granted calls per root as JSON.
 */
import Sqlite from 'better-sqlite3';
import { TreeStore } from '../../../src/sessions/tree-store.js';
import { BudgetLedger } from '../../../src/agent/tree/ledger.js';
import { DEFAULT_BUDGET } from '../../../src/agent/tree/budget.js';

const [file, ...roots] = process.argv.slice(2);
const db = new Sqlite(file);
db.pragma('busy_timeout = 10000');
db.pragma('journal_mode = WAL');
new TreeStore(db);
// barrier: say ready, start when the test has seen both processes ready
process.stderr.write('ready\n');
await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
// Each granted call holds the process for 2 ms, as a model call would: without it one process can finish all
// twenty trees (~30 ms) before a busy machine schedules the other, and nothing races.
const modelCall = new Int32Array(new SharedArrayBuffer(4));
const granted: number[] = [];
for (const root of roots) {
  const ledger = new BudgetLedger(db, root, { ...DEFAULT_BUDGET, max_llm_calls: 30, reserved_final_calls: 1 }, true);
  let n = 0;
  while (ledger.reserveCall({ root: false }) === 'ok') {
    Atomics.wait(modelCall, 0, 0, 2);
    ledger.book(1, 0);
    n++;
  }
  granted.push(n);
}
db.close();
process.stdout.write(JSON.stringify(granted));
process.stdin.destroy();

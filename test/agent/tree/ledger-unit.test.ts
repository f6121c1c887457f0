/**
 * The tree budget's ledger and stored snapshot in-process (the quick loop and
 * the mutation run): the root's reserved final call never passes the hard LLM
 * call cap, and a stored snapshot is accepted only when every field is valid.
 */
import { describe, expect, it } from 'vitest';
import Sqlite from 'better-sqlite3';
import { DEFAULT_BUDGET, parseBudgetSnapshot } from '../../../src/agent/tree/budget.js';
import { BudgetLedger } from '../../../src/agent/tree/ledger.js';
import { TreeStore } from '../../../src/sessions/tree-store.js';

function ledger(budget: Partial<typeof DEFAULT_BUDGET>): BudgetLedger {
  const db = new Sqlite(':memory:');
  new TreeStore(db);
  BudgetLedger.init(db, 'root');
  return new BudgetLedger(db, 'root', { ...DEFAULT_BUDGET, ...budget }, true);
}

describe('the root reserved final call', () => {
  it('is granted once when the budget runs out, and never past the hard LLM call cap', () => {
    const l = ledger({ max_llm_calls: 3, reserved_final_calls: 1 });
    expect(l.reserveCall({ root: true })).toBe('ok');
    expect(l.reserveCall({ root: false })).toBe('ok');
    // two of three used, one reserved: the budget is out, the root gets its final answer
    expect(l.reserveCall({ root: false })).toBe('denied');
    expect(l.reserveCall({ root: true })).toBe('final');
    expect(l.usage()).toMatchObject({ llm_calls: 3, exhausted: 'llm_calls' });
    // the cap is reached: no further call, not even the root's
    expect(l.reserveCall({ root: true })).toBe('denied');
    expect(l.usage().llm_calls).toBe(3);
  });

  it('a title or summary is skipped once the budget is out, without stopping the tree', () => {
    const l = ledger({ max_llm_calls: 2, reserved_final_calls: 1 });
    expect(l.reserveCall({ root: true })).toBe('ok');
    expect(l.reserveCall({ root: true, aux: true })).toBe('denied');
    expect(l.usage()).toMatchObject({ llm_calls: 1, exhausted: null });
    expect(l.reserveCall({ root: true })).toBe('final');
  });
});

describe('a stored budget snapshot', () => {
  const valid = { ...DEFAULT_BUDGET };

  it('round-trips when every field is valid', () => {
    expect(parseBudgetSnapshot(JSON.stringify(valid))).toEqual(valid);
  });

  it('fails closed on anything off: one field missing, zero, negative, a string, enabled not a boolean, not JSON', () => {
    const off: unknown[] = [
      { enabled: true, max_llm_calls: 5 },
      { ...valid, max_total_tokens: 0 },
      { ...valid, max_total_cost_usd: -1 },
      { ...valid, max_duration_seconds: '60' },
      { ...valid, enabled: 'yes' },
      [],
      null,
      7,
    ];
    for (const v of off) expect(parseBudgetSnapshot(JSON.stringify(v)), JSON.stringify(v)).toBeUndefined();
    expect(parseBudgetSnapshot('{not json')).toBeUndefined();
    expect(parseBudgetSnapshot(null)).toBeUndefined();
    expect(parseBudgetSnapshot('')).toBeUndefined();
  });

  it('holds the rules a new budget is read with: whole numbers where the variable takes one, the reserved calls under the cap', () => {
    const off: Partial<typeof DEFAULT_BUDGET>[] = [
      { max_total_agents: 2.5 },
      { max_llm_calls: 40.5 },
      { max_total_tokens: 1000.1 },
      { max_duration_seconds: 0.5 },
      { reserved_final_calls: 0.5 },
      { max_llm_calls: 3, reserved_final_calls: 3 },
      { max_llm_calls: 3, reserved_final_calls: 4 },
    ];
    for (const v of off) expect(parseBudgetSnapshot(JSON.stringify({ ...valid, ...v })), JSON.stringify(v)).toBeUndefined();
    // the cost is a number of dollars, not a count; the last LLM call under the cap may be reserved
    const fine = { ...valid, max_total_cost_usd: 2.5, max_llm_calls: 3, reserved_final_calls: 2 };
    expect(parseBudgetSnapshot(JSON.stringify(fine))).toEqual(fine);
  });
});

/** A ledger on a clock the test moves (milliseconds), as a process running requests on the tree sees it. */
function clocked(budget: Partial<typeof DEFAULT_BUDGET>, db = new Sqlite(':memory:')) {
  const clock = { now: 0 };
  new TreeStore(db);
  BudgetLedger.init(db, 'root');
  const l = new BudgetLedger(db, 'root', { ...DEFAULT_BUDGET, ...budget }, true, () => clock.now);
  return { l, clock, db };
}
const HOUR = 3_600_000;

describe('the duration budget counts the time requests ran', () => {
  it("a request that runs past AGENT_MAX_DURATION_SECONDS ends the tree; only the root's final answer is left", () => {
    const { l, clock } = clocked({ max_duration_seconds: 60 });
    l.beginRequest();
    clock.now = 59_000;
    expect(l.reserveCall({ root: false })).toBe('ok');
    expect(l.usage().running_ms).toBe(59_000);
    clock.now = 60_000;
    expect(l.book(10, 0)).toBe(false);
    expect(l.usage()).toMatchObject({ exhausted: 'duration', running_ms: 60_000 });
    expect(l.reserveCall({ root: false })).toBe('denied');
    expect(l.reserveCall({ root: true })).toBe('final');
  });

  it("the time between requests never counts, however long; every request's running time adds up", () => {
    const { l, clock, db } = clocked({ max_duration_seconds: 60 });
    l.beginRequest();
    clock.now = 40_000;
    expect(l.reserveCall({ root: true })).toBe('ok');
    l.endRequest();
    // a day later, the session is resumed
    clock.now = 24 * HOUR;
    expect(l.usage().running_ms).toBe(40_000);
    l.beginRequest();
    clock.now += 15_000;
    expect(l.reserveCall({ root: true })).toBe('ok');
    expect(l.usage()).toMatchObject({ running_ms: 55_000, exhausted: null });
    clock.now += 5_000;
    expect(l.reserveCall({ root: false })).toBe('denied');
    expect(l.usage()).toMatchObject({ running_ms: 60_000, exhausted: 'duration' });
    l.endRequest();
    // one row per request with the time it ran
    expect(db.prepare('SELECT request, running_ms FROM tree_request_time WHERE root_id = ? ORDER BY request').all('root')).toEqual([
      { request: 1, running_ms: 40_000 },
      { request: 2, running_ms: 20_000 },
    ]);
  });

  it('the running time is stored as the request goes, so another process (or a crash) sees it', () => {
    const { l, clock, db } = clocked({});
    l.beginRequest();
    clock.now = 7_000;
    l.book(1, 0);
    // this process never ended the request (killed): another ledger on the file reads the time stored
    const other = new BudgetLedger(db, 'root', DEFAULT_BUDGET, true, () => 0);
    expect(other.usage().running_ms).toBe(7_000);
    // a new request of the other process starts from there
    other.beginRequest();
    expect(other.usage().running_ms).toBe(7_000);
  });

  it('a corrupt running time fails closed like the rest of the record', () => {
    const { l, db } = clocked({});
    l.beginRequest();
    l.endRequest();
    for (const bad of ["'lots'", '-5']) {
      db.prepare(`UPDATE tree_request_time SET running_ms = ${bad} WHERE root_id = 'root'`).run();
      expect(() => l.usage(), bad).toThrow(/budget usage record of task tree root is corrupt/);
    }
  });
});

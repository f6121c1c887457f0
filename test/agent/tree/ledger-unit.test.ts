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

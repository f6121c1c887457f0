/**
 * What the graph sees of the tree budget: reserve an LLM call before it, book its
 * tokens and cost after. One per run (root or child), over the tree's one ledger.
 */
import type { BudgetLedger, Gate } from './ledger.js';
import type { BudgetKind } from './budget.js';

export interface CallBudget {
  /** before every LLM call of the run, a wrap-up for the run's own limit too: only the tree's budget decides */
  reserve(): Gate;
  /** gives back a reserved call that was not made */
  cancel(): void;
  /** before a title or history-summary call: false (skip it) once a budget ran out, never the reserved final call */
  reserveAux(): boolean;
  /** the budget that ran out, if one did */
  exhausted(): BudgetKind | null;
  /** false when this call's usage crossed a budget */
  book(usage: { input_tokens?: number; output_tokens?: number }): boolean;
}

export function callBudget(
  ledger: BudgetLedger,
  o: { root: boolean; cost(u: { input_tokens: number; output_tokens: number }): number },
): CallBudget {
  return {
    reserve: () => ledger.reserveCall({ root: o.root }),
    cancel: () => ledger.unreserveCall(),
    reserveAux: () => ledger.reserveCall({ root: o.root, aux: true }) === 'ok',
    exhausted: () => ledger.usage().exhausted,
    book: (u) => {
      const usage = { input_tokens: u.input_tokens ?? 0, output_tokens: u.output_tokens ?? 0 };
      return ledger.book(usage.input_tokens + usage.output_tokens, o.cost(usage));
    },
  };
}

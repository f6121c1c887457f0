/**
 * The tree budget ledger: usage of a recursive tree lives in the
 * `tree_usage` row of the sessions DB and every reserve/book is one BEGIN IMMEDIATE
 * transaction, so two processes on one tree never overspend. LLM calls are reserved
 * before the call (the last `reserved_final_calls` only for the root's final answer),
 * tokens and cost booked after. A missing or corrupt row fails closed.
 */
import type Database from 'better-sqlite3';
import { CopilotError, ExitCode } from '../../errors.js';
import type { BudgetKind, BudgetSnapshot } from './budget.js';

export interface TreeUsage {
  agents: number;
  llm_calls: number;
  tokens: number;
  cost_usd: number;
  started_ms: number;
  /** the first budget that ran out */
  exhausted: BudgetKind | null;
}

/** 'ok': go on; 'final': only the root's reserved final answer (no tools); 'denied': stop. */
export type Gate = 'ok' | 'final' | 'denied';

export class BudgetLedgerError extends CopilotError {
  constructor(message: string) {
    super(message, ExitCode.Limit);
  }
}

export class BudgetLedger {
  private readonly sel;
  private readonly upd;

  constructor(
    private readonly db: Database.Database,
    readonly rootId: string,
    readonly budget: BudgetSnapshot,
    /** whether cost can be enforced (the model has a price) */
    readonly costKnown: boolean,
  ) {
    this.sel = db.prepare('SELECT agents, llm_calls, tokens, cost_usd, started_ms, exhausted FROM tree_usage WHERE root_id = ?');
    this.upd = db.prepare('UPDATE tree_usage SET agents = ?, llm_calls = ?, tokens = ?, cost_usd = ?, exhausted = ? WHERE root_id = ?');
  }

  /** The root's row, written once with the root (the root counts as one agent). */
  static init(db: Database.Database, rootId: string): void {
    db.prepare('INSERT OR IGNORE INTO tree_usage (root_id, agents, llm_calls, tokens, cost_usd, started_ms) VALUES (?, 1, 0, 0, 0, ?)').run(
      rootId,
      Date.now(),
    );
  }

  usage(): TreeUsage {
    return this.read();
  }

  private read(): TreeUsage {
    const r = this.sel.get(this.rootId) as TreeUsage | undefined;
    if (!r)
      throw new BudgetLedgerError(
        `the budget usage record of task tree ${this.rootId.slice(0, 8)} is missing; refusing to continue (start a new session)`,
      );
    const nums = [r.agents, r.llm_calls, r.tokens, r.cost_usd, r.started_ms];
    if (
      !nums.every((n) => typeof n === 'number' && Number.isFinite(n) && n >= 0) ||
      (r.exhausted !== null && typeof r.exhausted !== 'string')
    )
      throw new BudgetLedgerError(
        `the budget usage record of task tree ${this.rootId.slice(0, 8)} is corrupt; refusing to continue (start a new session)`,
      );
    return r;
  }

  private write(u: TreeUsage): void {
    this.upd.run(u.agents, u.llm_calls, u.tokens, u.cost_usd, u.exhausted, this.rootId);
  }

  private exhaustedBy(u: TreeUsage, now: number): BudgetKind | null {
    const b = this.budget;
    if (u.tokens >= b.max_total_tokens) return 'tokens';
    if (this.costKnown && u.cost_usd >= b.max_total_cost_usd) return 'cost';
    if ((now - u.started_ms) / 1000 >= b.max_duration_seconds) return 'duration';
    if (u.llm_calls >= b.max_llm_calls - b.reserved_final_calls) return 'llm_calls';
    return null;
  }

  /**
   * Reserves one LLM call. Once a budget ran out only the root may go on, with a reserved
   * final call. A run's own limit wrap-up is an ordinary call here: a limit is the run's,
   * the budget the tree's. `aux` (a title or history summary) never takes the reserved
   * final call.
   */
  reserveCall(o: { root: boolean; aux?: boolean }): Gate {
    const tx = this.db.transaction((): Gate => {
      const u = this.read();
      if (!this.budget.enabled) {
        this.write({ ...u, llm_calls: u.llm_calls + 1 });
        return 'ok';
      }
      const ex = u.exhausted ?? this.exhaustedBy(u, Date.now());
      if (ex === null) {
        this.write({ ...u, llm_calls: u.llm_calls + 1 });
        return 'ok';
      }
      // a title or summary is skipped, not the tree stopped: the next ordinary call records what ran out
      if (o.aux) return 'denied';
      const exhausted = u.exhausted ?? ex ?? null;
      if (o.root && u.llm_calls < this.budget.max_llm_calls) {
        this.write({ ...u, llm_calls: u.llm_calls + 1, exhausted });
        return 'final';
      }
      this.write({ ...u, exhausted: exhausted ?? 'llm_calls' });
      return 'denied';
    });
    return tx.immediate();
  }

  /** Gives back a reserved call that was not made (the request's --max-cost refused it). */
  unreserveCall(): void {
    this.db
      .transaction(() => {
        const u = this.read();
        this.write({ ...u, llm_calls: Math.max(0, u.llm_calls - 1) });
      })
      .immediate();
  }

  /** Books one call's tokens and cost; false when that crossed a budget. */
  book(tokens: number, costUsd: number): boolean {
    const tx = this.db.transaction((): boolean => {
      const u = this.read();
      const next: TreeUsage = { ...u, tokens: u.tokens + tokens, cost_usd: u.cost_usd + costUsd };
      if (!this.budget.enabled) {
        this.write(next);
        return true;
      }
      const b = this.budget;
      const crossed: BudgetKind | null =
        next.tokens >= b.max_total_tokens
          ? 'tokens'
          : this.costKnown && next.cost_usd >= b.max_total_cost_usd
            ? 'cost'
            : (Date.now() - u.started_ms) / 1000 >= b.max_duration_seconds
              ? 'duration'
              : null;
      next.exhausted = u.exhausted ?? crossed;
      this.write(next);
      return crossed === null && u.exhausted === null;
    });
    return tx.immediate();
  }

  /** Reserves `n` more agents; false (nothing reserved) when that would exceed the budget. */
  reserveAgents(n: number): boolean {
    const tx = this.db.transaction((): boolean => {
      const u = this.read();
      if (this.budget.enabled && u.agents + n > this.budget.max_total_agents) {
        // the tree stops cleanly: from now on only the root's reserved final answer
        this.write({ ...u, exhausted: u.exhausted ?? 'agents' });
        return false;
      }
      this.write({ ...u, agents: u.agents + n });
      return true;
    });
    return tx.immediate();
  }
}

/**
 * The tree budget ledger: usage of a recursive tree lives in the
 * `tree_usage` row of the sessions DB and every reserve/book is one BEGIN IMMEDIATE
 * transaction, so two processes on one tree never overspend. LLM calls are reserved
 * before the call (the last `reserved_final_calls` only for the root's final answer),
 * tokens and cost booked after. A missing or corrupt row fails closed.
 *
 * AGENT_MAX_DURATION_SECONDS counts the time the tree's requests ran, not the tree's age:
 * each request's running time is a `tree_request_time` row, written with every reserve
 * and book while the request runs and once more when it ends, so the idle time between
 * requests (a session resumed the next day) never counts, and a fork copies the rows.
 */
import type Database from 'better-sqlite3';
import { CopilotError, ExitCode } from '../../errors.js';
import type { BudgetKind, BudgetSnapshot } from './budget.js';

export interface TreeUsage {
  agents: number;
  llm_calls: number;
  tokens: number;
  cost_usd: number;
  /** when the tree was created (wall clock) */
  started_ms: number;
  /** how long the tree's requests ran, the running one's time so far included: what the duration budget counts */
  running_ms: number;
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

/** The request of this process that is running on the tree: its row and when it started (monotonic clock). */
interface RunningRequest {
  request: number;
  t0: number;
}

export class BudgetLedger {
  private readonly sel;
  private readonly upd;
  private readonly spent;
  private readonly tick;
  private running: RunningRequest | undefined;

  constructor(
    private readonly db: Database.Database,
    readonly rootId: string,
    readonly budget: BudgetSnapshot,
    /** whether cost can be enforced (the model has a price) */
    readonly costKnown: boolean,
    /** milliseconds on a monotonic clock: a wall-clock jump never spends or refunds running time */
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.sel = db.prepare('SELECT agents, llm_calls, tokens, cost_usd, started_ms, exhausted FROM tree_usage WHERE root_id = ?');
    this.upd = db.prepare('UPDATE tree_usage SET agents = ?, llm_calls = ?, tokens = ?, cost_usd = ?, exhausted = ? WHERE root_id = ?');
    // the running request's own row is left out: its time is the live clock's, newer than the row
    this.spent = db.prepare(
      "SELECT COALESCE(SUM(running_ms), 0) AS ms, COUNT(*) FILTER (WHERE typeof(running_ms) NOT IN ('integer', 'real') OR running_ms < 0) AS bad FROM tree_request_time WHERE root_id = ? AND request IS NOT ?",
    );
    this.tick = db.prepare('UPDATE tree_request_time SET running_ms = ? WHERE root_id = ? AND request = ?');
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

  /**
   * A request of the tree starts running in this process: from now on its running time
   * counts, stored in its own row. Ends the clock of an earlier request left running.
   */
  beginRequest(): void {
    this.endRequest();
    const t0 = this.clock();
    const request = this.db
      .transaction((): number => {
        const n = this.db.prepare('SELECT COALESCE(MAX(request), 0) + 1 FROM tree_request_time WHERE root_id = ?').pluck().get(this.rootId);
        this.db
          .prepare('INSERT INTO tree_request_time (root_id, request, started_ms, running_ms) VALUES (?, ?, ?, 0)')
          .run(this.rootId, n, Date.now());
        return n as number;
      })
      .immediate();
    this.running = { request, t0 };
  }

  /** The running request ended: its row keeps the time it ran, and the clock stops. */
  endRequest(): void {
    this.storeRunningTime();
    this.running = undefined;
  }

  private liveMs(): number {
    return this.running ? Math.max(0, Math.round(this.clock() - this.running.t0)) : 0;
  }

  private storeRunningTime(): void {
    if (this.running) this.tick.run(this.liveMs(), this.rootId, this.running.request);
  }

  private read(): TreeUsage {
    const r = this.sel.get(this.rootId) as Omit<TreeUsage, 'running_ms'> | undefined;
    if (!r)
      throw new BudgetLedgerError(
        `the budget usage record of task tree ${this.rootId.slice(0, 8)} is missing; refusing to continue (start a new session)`,
      );
    const spent = this.spent.get(this.rootId, this.running?.request ?? null) as { ms: number; bad: number };
    const nums = [r.agents, r.llm_calls, r.tokens, r.cost_usd, r.started_ms, spent.ms];
    if (
      spent.bad > 0 ||
      !nums.every((n) => typeof n === 'number' && Number.isFinite(n) && n >= 0) ||
      (r.exhausted !== null && typeof r.exhausted !== 'string')
    )
      throw new BudgetLedgerError(
        `the budget usage record of task tree ${this.rootId.slice(0, 8)} is corrupt; refusing to continue (start a new session)`,
      );
    return { ...r, running_ms: spent.ms + this.liveMs() };
  }

  private write(u: TreeUsage): void {
    this.upd.run(u.agents, u.llm_calls, u.tokens, u.cost_usd, u.exhausted, this.rootId);
    this.storeRunningTime();
  }

  private exhaustedBy(u: TreeUsage): BudgetKind | null {
    const b = this.budget;
    if (u.tokens >= b.max_total_tokens) return 'tokens';
    if (this.costKnown && u.cost_usd >= b.max_total_cost_usd) return 'cost';
    if (u.running_ms / 1000 >= b.max_duration_seconds) return 'duration';
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
      const ex = u.exhausted ?? this.exhaustedBy(u);
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
            : u.running_ms / 1000 >= b.max_duration_seconds
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

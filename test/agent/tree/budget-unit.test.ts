/**
 * A new root's tree budget (src/agent/tree/budget.ts) in-process: the defaults, the
 * `agent_budget` setting over them, and the one rule across fields (exit 2, one line). How the
 * setting is read from files and its AGENT_* env aliases is test/config/agent-budget-env.test.ts;
 * the stored snapshot is in ledger-unit.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { budgetFromSettings, DEFAULT_BUDGET, type BudgetSnapshot } from '../../../src/agent/tree/budget.js';
import { ExitCode, UsageError } from '../../../src/errors.js';

/** budgetFromSettings's error, or a failure when it returned. */
function refusal(settings: Partial<BudgetSnapshot>): UsageError {
  try {
    budgetFromSettings(settings);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return err as UsageError;
  }
  throw new Error(`accepted ${JSON.stringify(settings)}`);
}

describe('budgetFromSettings', () => {
  it('the defaults when nothing is set', () => {
    expect(budgetFromSettings()).toStrictEqual(DEFAULT_BUDGET);
    expect(budgetFromSettings({})).toStrictEqual(DEFAULT_BUDGET);
    expect(DEFAULT_BUDGET).toStrictEqual({
      enabled: true,
      max_total_agents: 50,
      max_llm_calls: 150,
      max_total_tokens: 1_500_000,
      max_total_cost_usd: 15,
      max_duration_seconds: 3600,
      reserved_final_calls: 1,
    });
  });

  it('the settings (agent_budget) over the defaults, field by field', () => {
    expect(budgetFromSettings({ max_total_agents: 3, enabled: false })).toStrictEqual({
      ...DEFAULT_BUDGET,
      max_total_agents: 3,
      enabled: false,
    });
  });

  it('the reserved final calls must stay under the LLM call cap', () => {
    expect(budgetFromSettings({ max_llm_calls: 3, reserved_final_calls: 2 })).toMatchObject({ max_llm_calls: 3, reserved_final_calls: 2 });
    const e = refusal({ max_llm_calls: 3, reserved_final_calls: 3 });
    expect(e.message).toBe(
      'agent_budget: reserved_final_calls must be less than max_llm_calls (3 >= 3; env AGENT_RESERVED_FINAL_CALLS, AGENT_MAX_LLM_CALLS)',
    );
    expect(e.exitCode).toBe(ExitCode.Usage);
    expect(refusal({ max_llm_calls: 1 }).message).toMatch(/\(1 >= 1;/);
    expect(refusal({ reserved_final_calls: 150 }).message).toMatch(/\(150 >= 150;/);
  });
});

/**
 * Reading the tree budget (src/agent/tree/budget.ts) in-process, as tables: the defaults,
 * the settings, each AGENT_* variable winning over them, and every value refused (exit 2,
 * one line naming the variable). The stored snapshot is in ledger-unit.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { budgetFromEnv, DEFAULT_BUDGET, type BudgetSnapshot } from '../../../src/agent/tree/budget.js';
import { ExitCode, UsageError } from '../../../src/errors.js';

/** budgetFromEnv's error, or a failure when it returned. */
function refusal(env: NodeJS.ProcessEnv, settings: Partial<BudgetSnapshot> = {}): UsageError {
  try {
    budgetFromEnv(env, settings);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return err as UsageError;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe('budgetFromEnv', () => {
  it('the defaults when nothing is set', () => {
    expect(budgetFromEnv({})).toStrictEqual(DEFAULT_BUDGET);
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

  it('the settings (agent_budget) over the defaults', () => {
    expect(budgetFromEnv({}, { max_total_agents: 3, enabled: false })).toStrictEqual({
      ...DEFAULT_BUDGET,
      max_total_agents: 3,
      enabled: false,
    });
  });

  const numeric: [string, keyof BudgetSnapshot, string, number][] = [
    ['AGENT_MAX_TOTAL_AGENTS', 'max_total_agents', '7', 7],
    ['AGENT_MAX_LLM_CALLS', 'max_llm_calls', '40', 40],
    ['AGENT_MAX_TOTAL_TOKENS', 'max_total_tokens', ' 2000 ', 2000],
    ['AGENT_MAX_TOTAL_COST_USD', 'max_total_cost_usd', '2.5', 2.5],
    ['AGENT_MAX_DURATION_SECONDS', 'max_duration_seconds', '90', 90],
    ['AGENT_RESERVED_FINAL_CALLS', 'reserved_final_calls', '3', 3],
  ];
  for (const [env, key, raw, value] of numeric)
    it(`${env}=${JSON.stringify(raw)} sets ${key}, over the settings`, () => {
      expect(budgetFromEnv({ [env]: raw }, { [key]: 4 })).toStrictEqual({ ...DEFAULT_BUDGET, [key]: value });
    });

  it('an empty or blank variable is not set', () => {
    const blank = Object.fromEntries(numeric.map(([env], i) => [env, i % 2 ? '' : '  ']));
    expect(budgetFromEnv({ ...blank, AGENT_RESOURCE_BUDGET_ENABLED: ' ' }, { max_llm_calls: 9 })).toStrictEqual({
      ...DEFAULT_BUDGET,
      max_llm_calls: 9,
    });
  });

  const switches: [string, boolean][] = [
    ['1', true],
    ['true', true],
    ['YES', true],
    [' on ', true],
    ['0', false],
    ['False', false],
    ['no', false],
    ['OFF', false],
  ];
  for (const [raw, enabled] of switches)
    it(`AGENT_RESOURCE_BUDGET_ENABLED=${JSON.stringify(raw)} is ${enabled}, over the settings`, () => {
      expect(budgetFromEnv({ AGENT_RESOURCE_BUDGET_ENABLED: raw }, { enabled: !enabled }).enabled).toBe(enabled);
    });

  for (const raw of ['maybe', 'button', 'onward', 'takeoff', 'nope', '2'])
    it(`AGENT_RESOURCE_BUDGET_ENABLED=${raw} is refused`, () => {
      const e = refusal({ AGENT_RESOURCE_BUDGET_ENABLED: raw });
      expect(e.message).toBe(`AGENT_RESOURCE_BUDGET_ENABLED must be true or false (got "${raw}")`);
      expect(e.exitCode).toBe(ExitCode.Usage);
    });

  const refused: [string, string, string][] = [
    ['AGENT_MAX_TOTAL_AGENTS', '2.5', 'integer'],
    ['AGENT_MAX_LLM_CALLS', '1.5', 'integer'],
    ['AGENT_MAX_TOTAL_TOKENS', '100.1', 'integer'],
    ['AGENT_MAX_DURATION_SECONDS', '0.5', 'integer'],
    ['AGENT_RESERVED_FINAL_CALLS', '0.5', 'integer'],
    ['AGENT_MAX_TOTAL_AGENTS', '0', 'integer'],
    ['AGENT_MAX_LLM_CALLS', '-3', 'integer'],
    ['AGENT_MAX_TOTAL_TOKENS', 'many', 'integer'],
    ['AGENT_MAX_DURATION_SECONDS', 'Infinity', 'integer'],
    ['AGENT_MAX_TOTAL_COST_USD', '0', 'number'],
    ['AGENT_MAX_TOTAL_COST_USD', ' -0.01 ', 'number'],
    ['AGENT_MAX_TOTAL_COST_USD', '1e400', 'number'],
    ['AGENT_MAX_TOTAL_COST_USD', '$5', 'number'],
  ];
  for (const [env, raw, kind] of refused)
    it(`${env}=${JSON.stringify(raw)} is refused (a positive ${kind})`, () => {
      const e = refusal({ [env]: raw });
      expect(e.message).toBe(`${env} must be a positive ${kind} (got "${raw}")`);
      expect(e.exitCode).toBe(ExitCode.Usage);
    });

  it('the reserved final calls must stay under the LLM call cap, from the variables or the settings', () => {
    expect(budgetFromEnv({ AGENT_MAX_LLM_CALLS: '3', AGENT_RESERVED_FINAL_CALLS: '2' })).toMatchObject({
      max_llm_calls: 3,
      reserved_final_calls: 2,
    });
    expect(refusal({ AGENT_MAX_LLM_CALLS: '3', AGENT_RESERVED_FINAL_CALLS: '3' }).message).toBe(
      'AGENT_RESERVED_FINAL_CALLS must be less than AGENT_MAX_LLM_CALLS (3 >= 3; also agent_budget in the settings)',
    );
    expect(refusal({ AGENT_MAX_LLM_CALLS: '2' }, { reserved_final_calls: 5 }).message).toBe(
      'AGENT_RESERVED_FINAL_CALLS must be less than AGENT_MAX_LLM_CALLS (5 >= 2; also agent_budget in the settings)',
    );
  });
});

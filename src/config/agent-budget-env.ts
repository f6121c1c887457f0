/**
 * The tree budget's environment aliases: AGENT_RESOURCE_BUDGET_ENABLED and AGENT_MAX_* each set
 * one field of the `agent_budget` setting (docs/task-trees.md, Tree budget). They are read
 * with the other env vars, so they rank as env (over config files, under flags) and a
 * classroom lock on agent_budget holds against them. A bad value is one line naming the
 * variable, exit 2.
 */
import { UsageError } from '../errors.js';

/** Each numeric variable, the agent_budget field it sets, and whether it takes only integers. */
export const AGENT_BUDGET_ENV: readonly { env: string; key: string; int: boolean }[] = [
  { env: 'AGENT_MAX_TOTAL_AGENTS', key: 'max_total_agents', int: true },
  { env: 'AGENT_MAX_LLM_CALLS', key: 'max_llm_calls', int: true },
  { env: 'AGENT_MAX_TOTAL_TOKENS', key: 'max_total_tokens', int: true },
  { env: 'AGENT_MAX_TOTAL_COST_USD', key: 'max_total_cost_usd', int: false },
  { env: 'AGENT_MAX_DURATION_SECONDS', key: 'max_duration_seconds', int: true },
  { env: 'AGENT_RESERVED_FINAL_CALLS', key: 'reserved_final_calls', int: true },
];

const ENABLED_ENV = 'AGENT_RESOURCE_BUDGET_ENABLED';

/** The agent_budget fields the environment sets and the variables that set them; undefined when none is set. */
export function agentBudgetFromEnv(env: NodeJS.ProcessEnv): { fields: Record<string, number | boolean>; names: string[] } | undefined {
  const fields: Record<string, number | boolean> = {};
  const names: string[] = [];
  const enabled = env[ENABLED_ENV]?.trim();
  if (enabled) {
    if (/^(1|true|yes|on)$/i.test(enabled)) fields.enabled = true;
    else if (/^(0|false|no|off)$/i.test(enabled)) fields.enabled = false;
    else throw new UsageError(`${ENABLED_ENV} must be true or false (got "${enabled}")`);
    names.push(ENABLED_ENV);
  }
  for (const { env: name, key, int } of AGENT_BUDGET_ENV) {
    const raw = env[name]?.trim();
    if (!raw) continue;
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0 || (int && !Number.isInteger(n)))
      throw new UsageError(`${name} must be a positive ${int ? 'integer' : 'number'} (got "${env[name]}")`);
    fields[key] = n;
    names.push(name);
  }
  return names.length > 0 ? { fields, names } : undefined;
}

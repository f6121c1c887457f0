/**
 * The tree budget of a recursive root: read once per new root from the settings
 * (`agent_budget`) and the environment (AGENT_*, which win), validated (exit 2
 * naming the variable), snapshotted with the root.
 * Legacy trees never parse these variables.
 */
import { UsageError } from '../../errors.js';

export interface BudgetSnapshot {
  enabled: boolean;
  max_total_agents: number;
  max_llm_calls: number;
  max_total_tokens: number;
  max_total_cost_usd: number;
  max_duration_seconds: number;
  reserved_final_calls: number;
}

export type BudgetKind = 'agents' | 'llm_calls' | 'tokens' | 'cost' | 'duration';

export const DEFAULT_BUDGET: BudgetSnapshot = {
  enabled: true,
  max_total_agents: 50,
  max_llm_calls: 150,
  max_total_tokens: 1_500_000,
  max_total_cost_usd: 15,
  max_duration_seconds: 3600,
  reserved_final_calls: 1,
};

const NUMERIC: { env: string; key: Exclude<keyof BudgetSnapshot, 'enabled'>; int: boolean }[] = [
  { env: 'AGENT_MAX_TOTAL_AGENTS', key: 'max_total_agents', int: true },
  { env: 'AGENT_MAX_LLM_CALLS', key: 'max_llm_calls', int: true },
  { env: 'AGENT_MAX_TOTAL_TOKENS', key: 'max_total_tokens', int: true },
  { env: 'AGENT_MAX_TOTAL_COST_USD', key: 'max_total_cost_usd', int: false },
  { env: 'AGENT_MAX_DURATION_SECONDS', key: 'max_duration_seconds', int: true },
  { env: 'AGENT_RESERVED_FINAL_CALLS', key: 'reserved_final_calls', int: true },
];

export function budgetFromEnv(env: NodeJS.ProcessEnv = process.env, settings: Partial<BudgetSnapshot> = {}): BudgetSnapshot {
  const b: BudgetSnapshot = { ...DEFAULT_BUDGET, ...settings };
  const en = env.AGENT_RESOURCE_BUDGET_ENABLED?.trim();
  if (en) {
    if (/^(1|true|yes|on)$/i.test(en)) b.enabled = true;
    else if (/^(0|false|no|off)$/i.test(en)) b.enabled = false;
    else throw new UsageError(`AGENT_RESOURCE_BUDGET_ENABLED must be true or false (got "${en}")`);
  }
  for (const { env: name, key, int } of NUMERIC) {
    const raw = env[name]?.trim();
    if (!raw) continue;
    const n = Number(raw);
    if (!validValue(n, int)) throw new UsageError(`${name} must be a positive ${int ? 'integer' : 'number'} (got "${env[name]}")`);
    b[key] = n;
  }
  if (b.reserved_final_calls >= b.max_llm_calls)
    throw new UsageError(
      `AGENT_RESERVED_FINAL_CALLS must be less than AGENT_MAX_LLM_CALLS (${b.reserved_final_calls} >= ${b.max_llm_calls}; also agent_budget in the settings)`,
    );
  return b;
}

/** What a budget value may be, from a variable, the settings or a stored snapshot alike. */
function validValue(n: unknown, int: boolean): n is number {
  return typeof n === 'number' && Number.isFinite(n) && n > 0 && (!int || Number.isInteger(n));
}

/** The rules budgetFromEnv enforces, on a value read back from the sessions DB. */
function isBudgetSnapshot(v: unknown): v is BudgetSnapshot {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return (
    typeof r.enabled === 'boolean' &&
    NUMERIC.every(({ key, int }) => validValue(r[key], int)) &&
    (r.reserved_final_calls as number) < (r.max_llm_calls as number)
  );
}

/** A stored snapshot, checked field by field: anything off (no snapshot at all too) fails closed. */
export function parseBudgetSnapshot(json: string | null): BudgetSnapshot | undefined {
  let v: unknown;
  try {
    // a missing snapshot (null) parses as null, which is no snapshot
    v = JSON.parse(String(json));
  } catch {
    // not JSON: v stays undefined, no snapshot
  }
  return isBudgetSnapshot(v) ? v : undefined;
}

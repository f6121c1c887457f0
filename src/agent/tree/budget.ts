/**
 * The tree budget of a recursive root: the `agent_budget` setting (its env aliases
 * AGENT_MAX_* are read with the settings, src/config/agent-budget-env.ts) over the
 * defaults, read once per new root, checked, snapshotted with the root.
 * Flat trees never read it.
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

const NUMERIC: { key: Exclude<keyof BudgetSnapshot, 'enabled'>; int: boolean }[] = [
  { key: 'max_total_agents', int: true },
  { key: 'max_llm_calls', int: true },
  { key: 'max_total_tokens', int: true },
  { key: 'max_total_cost_usd', int: false },
  { key: 'max_duration_seconds', int: true },
  { key: 'reserved_final_calls', int: true },
];

/** A new root's budget: the settings (each field already validated by the settings schema) over the defaults. */
export function budgetFromSettings(settings: Partial<BudgetSnapshot> = {}): BudgetSnapshot {
  const b: BudgetSnapshot = { ...DEFAULT_BUDGET, ...settings };
  if (b.reserved_final_calls >= b.max_llm_calls)
    throw new UsageError(
      `agent_budget: reserved_final_calls must be less than max_llm_calls (${b.reserved_final_calls} >= ${b.max_llm_calls}; env AGENT_RESERVED_FINAL_CALLS, AGENT_MAX_LLM_CALLS)`,
    );
  return b;
}

/** What a budget value may be, from a variable, the settings or a stored snapshot alike. */
function validValue(n: unknown, int: boolean): n is number {
  // Number.isFinite is false for anything but a finite number (no coercion, unlike the global isFinite)
  return Number.isFinite(n) && (n as number) > 0 && (!int || Number.isInteger(n));
}

/** The rules the settings schema and budgetFromSettings enforce, on a value read back from the sessions DB. */
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

/**
 * Settings from environment variables. Every key has a generic name
 * (`GNS3_COPILOT_<KEY>`, e.g. GNS3_COPILOT_MAX_ITERATIONS); the short env names of
 * docs/cli.md's options table win over it when both are set. The tree budget's
 * AGENT_MAX_* variables set single fields of agent_budget, over GNS3_COPILOT_AGENT_BUDGET.
 */
import { SETTING_KEYS, type SettingKey } from './schema.js';
import { agentBudgetFromEnv } from './agent-budget-env.js';
import { fromString } from './validate.js';

const ALIASES: Partial<Record<SettingKey, string[]>> = {
  server: ['GNS3_SERVER'],
  project: ['GNS3_PROJECT'],
  log_level: ['GNS3_COPILOT_LOG'],
  agent_mode: ['AGENT_MODE'],
};

export function envNamesFor(key: SettingKey): string[] {
  return [...(ALIASES[key] ?? []), `GNS3_COPILOT_${key.toUpperCase()}`];
}

/** key -> { value (raw string or converted), name of the env var(s) it came from } */
export function settingsFromEnv(env: NodeJS.ProcessEnv): Map<SettingKey, { value: unknown; name: string }> {
  const out = new Map<SettingKey, { value: unknown; name: string }>();
  for (const key of SETTING_KEYS) {
    for (const name of envNamesFor(key)) {
      const v = env[name];
      if (v !== undefined && v !== '') {
        out.set(key, { value: v, name });
        break;
      }
    }
  }
  // https://no-color.org: any non-empty NO_COLOR turns colour off.
  if (!out.has('color') && env.NO_COLOR) out.set('color', { value: false, name: 'NO_COLOR' });
  const budget = agentBudgetFromEnv(env);
  if (budget) {
    const whole = out.get('agent_budget');
    const base = whole && typeof whole.value === 'string' ? fromString('agent_budget', whole.value) : undefined;
    // an unreadable GNS3_COPILOT_AGENT_BUDGET stays as it is: validation names it
    if (whole && (typeof base !== 'object' || base === null)) return out;
    out.set('agent_budget', {
      value: { ...(base as object | undefined), ...budget.fields },
      name: [...(whole ? [whole.name] : []), ...budget.names].join(', '),
    });
  }
  return out;
}

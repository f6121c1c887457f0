/**
 * Settings from environment variables. Every key has a generic name
 * (`GNS3_COPILOT_<KEY>`, e.g. GNS3_COPILOT_MAX_ITERATIONS); the short env names of
 * docs/cli.md's options table win over it when both are set.
 */
import { SETTING_KEYS, type SettingKey } from './schema.js';

const ALIASES: Partial<Record<SettingKey, string[]>> = {
  server: ['GNS3_SERVER'],
  project: ['GNS3_PROJECT'],
  log_level: ['GNS3_COPILOT_LOG'],
};

export function envNamesFor(key: SettingKey): string[] {
  return [...(ALIASES[key] ?? []), `GNS3_COPILOT_${key.toUpperCase()}`];
}

/** key -> { value (raw string or converted), name of the env var it came from } */
export function settingsFromEnv(env: NodeJS.ProcessEnv): Map<SettingKey, { value: string | boolean; name: string }> {
  const out = new Map<SettingKey, { value: string | boolean; name: string }>();
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
  return out;
}

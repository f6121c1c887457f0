/**
 * Classroom locks seen from outside the settings loader: a resumed session,
 * `inject`, and the TUI's /mode must all yield to a locked key, not only the
 * flags and files that loadSettings layers.
 */
import type { Settings, SettingKey } from './schema.js';
import { readSystemConfig } from './files.js';
import { resolveSystemConfig } from './system-path.js';
import { validateSetting } from './validate.js';
import { UsageError } from '../errors.js';

export interface Lock<K extends SettingKey> {
  key: K;
  value: Settings[K];
  file: string;
}

/** The locked value of `key` from the (trusted) system config, if it is locked. */
export function lockedSetting<K extends SettingKey>(key: K, env: NodeJS.ProcessEnv = process.env): Lock<K> | undefined {
  const file = resolveSystemConfig(env).file;
  const sys = readSystemConfig(file);
  if (!sys || !(key in sys.locked)) return undefined;
  return { key, value: validateSetting(key, sys.locked[key], `${key} (locked) in ${file}`) as Settings[K], file };
}

export function describeLock(lock: Lock<SettingKey>): string {
  return `"${lock.key}" is locked to ${JSON.stringify(lock.value)} by the system config ${lock.file} (classroom lock)`;
}

/** Throws a usage error naming the lock when `wanted` differs from the locked value. */
export function assertUnlocked<K extends SettingKey>(lock: Lock<K> | undefined, wanted: unknown, who: string): void {
  if (lock && JSON.stringify(lock.value) !== JSON.stringify(wanted))
    throw new UsageError(`${who}: ${describeLock(lock)}; ask your instructor`);
}

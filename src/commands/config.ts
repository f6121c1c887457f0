/**
 * `gns3-copilot config get|set|unset|list|path`. Writes go to the user config
 * file only (the project and system files are edited by hand), through the
 * optimistic-locking updater so concurrent `config set`s keep each other's keys.
 */
import { loadSettings, type LoadedSettings } from '../config/load.js';
import { updateUserConfig } from '../config/store.js';
import { readSystemConfig, SECRET_LIKE_KEYS } from '../config/files.js';
import { fromString, isSettingKey, validateSetting } from '../config/validate.js';
import { SETTING_KEYS, type SettingKey } from '../config/schema.js';
import { dataDir, logFile, sessionsDbFile, systemConfigFile, userConfigFile } from '../config/paths.js';
import { UsageError } from '../errors.js';
import { jsonText } from '../output/json-text.js';
import { sanitizeLine } from '../security/sanitize.js';

const out = (line: string) => process.stdout.write(`${line}\n`);

function show(value: unknown): string {
  if (value === undefined) return '(unset)';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function requireKey(key: string): SettingKey {
  if (SECRET_LIKE_KEYS.test(key)) {
    throw new UsageError(
      `"${key}" is a secret: store it with \`gns3-copilot auth login\` (secrets live only in the OS keychain, never in config files)`,
    );
  }
  if (!isSettingKey(key)) throw new UsageError(`unknown setting "${key}" (one of: ${SETTING_KEYS.join(', ')})`);
  return key;
}

export async function configGet(key: string, opts: Record<string, unknown>, flags: Record<string, unknown> = {}): Promise<number> {
  const k = requireKey(key);
  const { settings, origins } = await loadSettings({ flags });
  const value = settings[k];
  out(opts.origin ? `${show(value)}\t${origins[k]}` : show(value));
  return value === undefined ? 1 : 0;
}

function systemLockFor(key: SettingKey): { file: string; value: unknown } | undefined {
  const file = systemConfigFile();
  const sys = readSystemConfig(file);
  if (!sys || !(key in sys.locked)) return undefined;
  return { file, value: validateSetting(key, sys.locked[key], `${key} (locked) in ${file}`) };
}

/** Layers above the user file that would hide a value written there. */
async function shadowedBy(key: SettingKey): Promise<string | undefined> {
  const loaded: LoadedSettings = await loadSettings({});
  const origin = loaded.origins[key] ?? '';
  return origin.startsWith('project') || origin.startsWith('env') ? origin : undefined;
}

export async function configSet(key: string, rawValue: string): Promise<number> {
  const k = requireKey(key);
  const value = validateSetting(k, fromString(k, rawValue), k);
  const lock = systemLockFor(k);
  if (lock && JSON.stringify(lock.value) !== JSON.stringify(value)) {
    throw new UsageError(
      `"${k}" is locked to ${JSON.stringify(lock.value)} by the system config ${lock.file} (classroom lock); it cannot be changed`,
    );
  }
  const file = userConfigFile();
  await updateUserConfig((current) => ({ ...current, [k]: value }), file);
  out(`${k} = ${show(value)}  (${file})`);
  const shadow = await shadowedBy(k).catch(() => undefined);
  if (shadow) process.stderr.write(`note: ${shadow} overrides this value\n`);
  return 0;
}

export async function configUnset(key: string): Promise<number> {
  const k = requireKey(key);
  const file = userConfigFile();
  let had = false;
  await updateUserConfig((current) => {
    had = k in current;
    const { [k]: _removed, ...rest } = current;
    return rest;
  }, file);
  out(had ? `${k} removed from ${file}` : `${k} was not set in ${file}`);
  return 0;
}

export async function configList(opts: Record<string, unknown>, flags: Record<string, unknown> = {}): Promise<number> {
  const { settings, origins, warnings } = await loadSettings({ flags });
  // like every command that runs: a key ignored in a file (a secret that belongs in the keychain) is said once, on stderr
  for (const w of warnings) process.stderr.write(`warning: ${sanitizeLine(w)}\n`);
  const keys = SETTING_KEYS;
  if (opts.json) {
    const obj = Object.fromEntries(
      keys.map((k) => [k, opts.origin ? { value: settings[k] ?? null, origin: origins[k] } : (settings[k] ?? null)]),
    );
    out(jsonText(obj, 2));
    return 0;
  }
  const width = Math.max(...keys.map((k) => k.length));
  for (const k of keys) {
    const line = `${k.padEnd(width)}  ${show(settings[k])}`;
    out(opts.origin ? `${line}  [${origins[k]}]` : line);
  }
  return 0;
}

export async function configPath(): Promise<number> {
  const loaded = await loadSettings({}).catch(() => undefined);
  out(`user     ${userConfigFile()}`);
  out(`system   ${systemConfigFile()}`);
  out(`project  ${loaded?.files.project ?? '(none: .gns3-copilot.json in this directory or a parent)'}`);
  out(`data     ${dataDir(loaded?.settings.data_dir)}`);
  out(`sessions ${sessionsDbFile(loaded?.settings.data_dir)}`);
  out(`log      ${process.env.GNS3_COPILOT_LOG_FILE ?? logFile()}`);
  return 0;
}

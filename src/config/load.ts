/**
 * Effective settings: flags > env > project file > user config > system config
 * > defaults, with classroom locks from the system config that no other layer
 * may override. Every value is validated where it enters, so an error names
 * its source (`--max-iterations`, `GNS3_COPILOT_MODE`, a file path).
 */
import { settingsSchema, SETTING_KEYS, type Settings, type SettingKey } from './schema.js';
import { userConfigFile } from './paths.js';
import { tightenExisting } from './perms.js';
import { resolveSystemConfig } from './system-path.js';
import { findProjectFile, readJsonObject, readSystemConfig, SECRET_LIKE_KEYS, type RawConfig } from './files.js';
import { settingsFromEnv } from './env.js';
import { fromString, isSettingKey, validateSetting } from './validate.js';
import { UsageError } from '../errors.js';

export interface LoadOptions {
  /** setting key -> value from the command line (already typed or strings) */
  flags?: Partial<Record<string, unknown>>;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** override file locations (tests); default from paths.ts */
  userConfigFile?: string;
  systemConfigFile?: string;
  /** how a flag-layer key is named in errors when no typed flag set it (e.g. mode -> "inject") */
  flagLabels?: Partial<Record<string, string>>;
}

export interface LoadedSettings {
  settings: Settings;
  /** key -> "default" | "system <file>" | "system <file> (locked)" | "user <file>" | "project <file>" | "env <NAME>" | "flag --x" */
  origins: Record<string, string>;
  /** ignored unknown or secret-looking keys in config files */
  warnings: string[];
  locked: SettingKey[];
  files: { system: string; user: string; project?: string };
}

/** How a key is spelled on the command line, for error messages. */
const FLAG_NAMES: Partial<Record<SettingKey, string>> = {
  tool_limits: '--tool-limit',
  log_level: '--verbose',
  color: '--no-color',
  inject_level: '--level',
};
export function flagName(key: string): string {
  return FLAG_NAMES[key as SettingKey] ?? `--${key.replace(/_/g, '-')}`;
}

interface Layer {
  kind: 'system' | 'user' | 'project' | 'env' | 'flag';
  origin: (key: SettingKey) => string;
  /** name used in error messages */
  label: (key: SettingKey) => string;
  values: Map<string, unknown>;
  fromFile: boolean;
}

function fileLayer(kind: 'system' | 'user' | 'project', file: string, raw: RawConfig): Layer {
  return {
    kind,
    origin: () => `${kind} ${file}`,
    label: (k) => `${k} in ${file}`,
    values: new Map(Object.entries(raw)),
    fromFile: true,
  };
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Keys whose object value a layer sets field by field over the layers below it: the tree
 * budget, whose env aliases (AGENT_MAX_LLM_CALLS, …) each name one field.
 */
const FIELD_MERGED: ReadonlySet<SettingKey> = new Set(['agent_budget']);

function layered(key: SettingKey, below: unknown, value: unknown): unknown {
  return FIELD_MERGED.has(key) && typeof below === 'object' && below !== null ? { ...below, ...(value as object) } : value;
}

export async function loadSettings(opts: LoadOptions = {}): Promise<LoadedSettings> {
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  const systemChoice = opts.systemConfigFile ? { file: opts.systemConfigFile } : resolveSystemConfig(env);
  const systemFile = systemChoice.file;
  const userFile = opts.userConfigFile ?? userConfigFile();
  const projectFile = findProjectFile(cwd);
  const warnings: string[] = systemChoice.warning ? [systemChoice.warning] : [];

  const layers: Layer[] = [];
  const system = readSystemConfig(systemFile);
  if (system) layers.push(fileLayer('system', systemFile, system.values));
  const user = readJsonObject(userFile);
  tightenExisting(userFile);
  if (user) layers.push(fileLayer('user', userFile, user));
  const project = projectFile ? readJsonObject(projectFile) : undefined;
  if (projectFile && project) layers.push(fileLayer('project', projectFile, project));

  const envValues = settingsFromEnv(env);
  layers.push({
    kind: 'env',
    origin: (k) => `env ${envValues.get(k)!.name}`,
    label: (k) => envValues.get(k)!.name,
    values: new Map([...envValues].map(([k, v]) => [k, typeof v.value === 'string' ? fromString(k, v.value) : v.value])),
    fromFile: false,
  });
  const flags = new Map(Object.entries(opts.flags ?? {}).filter(([, v]) => v !== undefined));
  layers.push({
    kind: 'flag',
    origin: (k) => `flag ${flagName(k)}`,
    label: (k) => opts.flagLabels?.[k] ?? flagName(k),
    values: new Map([...flags].map(([k, v]) => [k, isSettingKey(k) && typeof v === 'string' ? fromString(k, v) : v])),
    fromFile: false,
  });

  // Locked values are validated once, up front, so a bad classroom file is reported as such.
  const locked = new Map<SettingKey, unknown>();
  for (const [k, v] of Object.entries(system?.locked ?? {})) {
    if (!isSettingKey(k)) throw new UsageError(`system config ${systemFile}: locked key "${k}" is not a setting`);
    locked.set(k, validateSetting(k, v, `${k} (locked) in ${systemFile}`));
  }

  const raw: Partial<Record<SettingKey, unknown>> = {};
  const origins: Record<string, string> = {};
  for (const layer of layers) {
    for (const [k, v] of layer.values) {
      if (!isSettingKey(k)) {
        if (!layer.fromFile) throw new UsageError(`unknown setting "${k}"`);
        warnings.push(
          SECRET_LIKE_KEYS.test(k)
            ? `ignored "${k}" in ${layer.origin(k as SettingKey).replace(/^\w+ /, '')}: secrets belong in the keychain (gns3-copilot auth login)`
            : `ignored unknown key "${k}" in ${layer.origin(k as SettingKey).replace(/^\w+ /, '')}`,
        );
        continue;
      }
      const value = layered(k, raw[k], validateSetting(k, v, layer.label(k)));
      // a layer that only repeats the locked value (or, for a merged key, some of its fields) changes nothing
      if (layer.kind !== 'system' && locked.has(k) && !same(layered(k, locked.get(k), value), locked.get(k))) {
        throw new UsageError(
          `${layer.label(k)}: "${k}" is locked to ${JSON.stringify(locked.get(k))} by the system config ${systemFile} (classroom lock); ask your instructor or remove the override`,
        );
      }
      raw[k] = value;
      origins[k] = layer.origin(k);
    }
  }
  for (const k of locked.keys()) origins[k] = `system ${systemFile} (locked)`;
  for (const k of SETTING_KEYS) origins[k] ??= 'default';

  const parsed = settingsSchema.safeParse(raw);
  if (!parsed.success) {
    // Per-key validation passed, so this is a cross-key problem; name the first key.
    const issue = parsed.error.issues[0]!;
    throw new UsageError(`${String(issue.path[0] ?? 'settings')}: ${issue.message}`);
  }
  return {
    settings: parsed.data,
    origins,
    warnings,
    locked: [...locked.keys()],
    files: { system: systemFile, user: userFile, project: projectFile },
  };
}

/**
 * Reading the config files (docs/ARCHITECTURE.md, Settings and files): the project file (nearest
 * `.gns3-copilot.json` in cwd or a parent), the user file (conf's JSON at the
 * XDG path) and the system file (classroom defaults and `locked` keys). Read
 * with plain fs: it is faster than constructing conf, and reads need no lock.
 */
import { readFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { PROJECT_CONFIG_NAME } from './paths.js';
import { UsageError, errorMessage } from '../errors.js';

export type RawConfig = Record<string, unknown>;

/** Keys that look like secrets are never read from (or written to) config files. */
export const SECRET_LIKE_KEYS =
  /^(api_key|apikey|llm_api_key|openai_api_key|password|gns3_password|token|secret|.*_token|.*_secret|.*_password)$/i;

/** Parses a JSON object file; undefined when absent. A broken file is a usage error naming it. */
export function readJsonObject(file: string): RawConfig | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`cannot read config file ${file}: ${errorMessage(err)}`);
  }
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`config file ${file} is not valid JSON: ${errorMessage(err)}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new UsageError(`config file ${file} must contain a JSON object`);
  }
  return parsed as RawConfig;
}

/** Nearest `.gns3-copilot.json` from cwd up to the filesystem root. */
export function findProjectFile(cwd: string): string | undefined {
  let dir = resolve(cwd);
  for (;;) {
    const candidate = join(dir, PROJECT_CONFIG_NAME);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

export interface SystemConfig {
  values: RawConfig;
  /** key -> locked value (taken from `locked: {...}` or, for `locked: [...]`, from the file's own values) */
  locked: Record<string, unknown>;
}

/**
 * The system file may say `"locked": ["mode", "max_tool_calls"]` (values from
 * the same file) or `"locked": {"mode": "teaching"}`.
 */
export function readSystemConfig(file: string): SystemConfig | undefined {
  const raw = readJsonObject(file);
  if (!raw) return undefined;
  const { locked, ...values } = raw;
  const lockedValues: Record<string, unknown> = {};
  if (Array.isArray(locked)) {
    for (const k of locked) {
      if (typeof k !== 'string') throw new UsageError(`system config ${file}: "locked" must list key names`);
      if (!(k in values)) throw new UsageError(`system config ${file}: locked key "${k}" has no value in the file`);
      lockedValues[k] = values[k];
    }
  } else if (locked && typeof locked === 'object') {
    Object.assign(lockedValues, locked);
    for (const [k, v] of Object.entries(lockedValues)) values[k] = v;
  } else if (locked !== undefined) {
    throw new UsageError(`system config ${file}: "locked" must be a list of keys or an object`);
  }
  return { values, locked: lockedValues };
}

/**
 * Per-key validation against the one settings schema, with messages that name
 * where the value came from (flag, env var, file) and what is allowed. Strings
 * from the command line and env are turned into the key's type first, because
 * `z.coerce.boolean()` would read "false" as true.
 */
import { settingsSchema, type SettingKey } from './schema.js';
import { MODE_CHOICES_TEXT } from '../core/modes.js';
import { AGENT_MODES } from './agent-mode.js';
import { UsageError } from '../errors.js';

type AnySchema = { _zod: { def: Record<string, unknown> & { type: string } } } & Record<string, unknown>;

/** Strips default/optional/pipe wrappers to the schema that says what a value is. */
function core(key: SettingKey): AnySchema {
  let s = (settingsSchema.shape as Record<string, unknown>)[key] as AnySchema;
  for (;;) {
    const def = s._zod.def;
    if (def.innerType) s = def.innerType as AnySchema;
    else if (def.type === 'pipe') s = def.in as AnySchema;
    else return s;
  }
}

export function isSettingKey(key: string): key is SettingKey {
  return Object.prototype.hasOwnProperty.call(settingsSchema.shape, key);
}

export function settingType(key: SettingKey): string {
  return core(key)._zod.def.type;
}

const SPECIAL: Partial<Record<SettingKey, string>> = {
  server: 'an http:// or https:// URL, e.g. http://127.0.0.1:3080',
  base_url: 'an http:// or https:// URL, e.g. https://api.openai.com/v1',
  mode: MODE_CHOICES_TEXT,
  agent_mode: `one of ${AGENT_MODES.join('|')}`,
  tool_limits: '<tool>=<n> with n 1..1000 (a JSON object in files)',
  model_prices: 'a JSON object {model: {input, output}} in USD per 1M tokens',
  agent_budget:
    'a JSON object with any of enabled (boolean), max_total_agents, max_llm_calls, max_total_tokens, max_duration_seconds, reserved_final_calls (positive integers), max_total_cost_usd (positive number)',
  devices: 'a JSON object of per-device overrides {name: {platform, transport, host, port, username, key_file}}',
};

/** "an integer 1..100", "one of fail|warn|continue", … */
export function describeAllowed(key: SettingKey): string {
  const special = SPECIAL[key];
  if (special) return special;
  const s = core(key);
  const def = s._zod.def;
  switch (def.type) {
    case 'number': {
      const range = `${String(s.minValue)}..${String(s.maxValue)}`;
      return s.isInt ? `an integer ${range}` : `a number ${range}`;
    }
    case 'enum':
      return `one of ${(s.options as string[]).join('|')}`;
    case 'boolean':
      return 'true or false';
    case 'array':
      return 'a list of strings (JSON array or comma-separated)';
    case 'record':
      return 'a JSON object';
    default:
      return 'a non-empty string';
  }
}

const TRUE = /^(1|true|yes|on)$/i;
const FALSE = /^(0|false|no|off)$/i;

/**
 * Converts a string (env var, `config set` argument) to the key's type. Returns
 * the string unchanged when it cannot tell; validation then names the problem.
 */
export function fromString(key: SettingKey, raw: string): unknown {
  const type = settingType(key);
  const v = raw.trim();
  if (type === 'boolean') {
    if (TRUE.test(v)) return true;
    if (FALSE.test(v)) return false;
    return raw;
  }
  if (type === 'array') {
    if (v.startsWith('[')) return parseJsonOr(v, raw);
    return v === ''
      ? []
      : v
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean);
  }
  if (type === 'record' || type === 'object') {
    if (v.startsWith('{')) return parseJsonOr(v, raw);
    if (key === 'tool_limits') return parseToolLimitList(v);
    return raw;
  }
  return raw;
}

function parseJsonOr(v: string, raw: string): unknown {
  try {
    return JSON.parse(v);
  } catch {
    return raw;
  }
}

/** "a=3,b=5" → {a:"3", b:"5"}; anything malformed stays a string so validation reports it. */
function parseToolLimitList(v: string): unknown {
  const out: Record<string, string> = {};
  for (const part of v
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^([A-Za-z0-9_]+)=(.*)$/.exec(part);
    if (!m) return v;
    out[m[1]!] = m[2]!;
  }
  return out;
}

function show(value: unknown): string {
  const s = typeof value === 'string' ? value : JSON.stringify(value);
  return s === undefined ? 'undefined' : s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/**
 * Validates one value; returns the parsed value or throws a one-line UsageError:
 * "--max-iterations: must be an integer 1..100 (got 0)".
 */
export function validateSetting(key: SettingKey, value: unknown, source: string): unknown {
  const schema = (
    settingsSchema.shape as Record<
      string,
      { safeParse(v: unknown): { success: boolean; data?: unknown; error?: { issues: { path: PropertyKey[]; message: string }[] } } }
    >
  )[key]!;
  // null / "" never mean "use the default" silently; they are bad values.
  // z.coerce.boolean() reads any non-empty string ("false", "maybe") as true: read it as a boolean word or refuse it
  if (typeof value === 'string' && settingType(key) === 'boolean') value = fromString(key, value);
  const unreadableBool = typeof value === 'string' && settingType(key) === 'boolean';
  const r = value === null || unreadableBool ? { success: false as const, error: undefined } : schema.safeParse(value);
  if (r.success && !(typeof value === 'string' && value.trim() === '' && settingType(key) !== 'string')) return r.data;
  const issue = r.error?.issues[0];
  const where = issue && issue.path.length > 0 ? ` (${issue.path.map(String).join('.')}: ${issue.message})` : '';
  // a refusal (credentials in a URL) says why rather than what is allowed
  if (issue?.message.startsWith('must not')) throw new UsageError(`${source}: ${issue.message} (got ${show(value)})`);
  throw new UsageError(`${source}: must be ${describeAllowed(key)} (got ${show(value)})${where}`);
}

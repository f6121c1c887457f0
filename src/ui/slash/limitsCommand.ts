/**
 * `/limits`: show or set every per-request limit; values are checked against the settings schema.
 *   /limits iterations=10 tools=5 time=120 tool=execute_multiple_device_commands:3
 *           on-limit=fail parallel=2 retries=0 config=2 diagnostic=10 cost=0.50
 * `off` clears tools, time, cost, a tool's cap and the config/diagnostic caps. The parsing is pure;
 * the command applies the result to the session and the status bar.
 */
import { TOOL_NAMES } from '../../core/modes.js';
import type { RequestLimits } from '../../core/api.js';
import { LIMIT_DEFAULTS, toolRetries } from '../../agent/limits.js';
import { describeAllowed, validateSetting } from '../../config/validate.js';
import { settingsSchema, type SettingKey } from '../../config/schema.js';
import type { SlashCommand } from './types.js';
import { errorMessage } from '../../errors.js';

export interface LimitsCommand {
  kind: 'limits';
  iterations?: number;
  /** null: unlimited */
  tools?: number | null;
  time?: number | null;
  /** USD per request (--max-cost); null: no cost limit */
  cost?: number | null;
  /** per-tool caps; null removes one */
  toolLimits?: Record<string, number | null>;
  onLimit?: RequestLimits['on_limit'];
  parallel?: number;
  retries?: number;
  configCalls?: number | null;
  diagnosticCalls?: number | null;
  errors: string[];
}

const OFF = /^(off|none|unlimited|∞)$/i;
/** A per-tool cap's range, from the schema of `tool_limits`. */
const TOOL_CAP = settingsSchema.shape.tool_limits.unwrap().valueType;
const TOOL_CAP_RANGE = `${String(TOOL_CAP.minValue)}..${String(TOOL_CAP.maxValue)}`;
export const LIMIT_KEYS = 'iterations, tools, time, cost, tool=<name>:<n>, on-limit, parallel, retries, config, diagnostic';

type NumericField = 'iterations' | 'tools' | 'time' | 'cost' | 'parallel' | 'retries' | 'configCalls' | 'diagnosticCalls';

/** The numeric limits: the names /limits accepts (the first is the label), the setting whose schema holds the range, and whether `off` clears it. */
const NUMERIC: { names: string[]; field: NumericField; key: SettingKey; offOk: boolean }[] = [
  { names: ['iterations', 'iter', 'max_iterations'], field: 'iterations', key: 'max_iterations', offOk: false },
  { names: ['tools', 'tool_calls', 'max_tool_calls'], field: 'tools', key: 'max_tool_calls', offOk: true },
  { names: ['time', 'max_time'], field: 'time', key: 'max_time', offOk: true },
  { names: ['cost', 'max_cost'], field: 'cost', key: 'max_cost', offOk: true },
  { names: ['parallel', 'max_parallel_tools'], field: 'parallel', key: 'max_parallel_tools', offOk: false },
  { names: ['retries', 'max_retries_per_tool'], field: 'retries', key: 'max_retries_per_tool', offOk: false },
  { names: ['config', 'max_device_config_calls'], field: 'configCalls', key: 'max_device_config_calls', offOk: true },
  { names: ['diagnostic', 'max_diagnostic_calls'], field: 'diagnosticCalls', key: 'max_diagnostic_calls', offOk: true },
];

export function parseLimitsArgs(parts: string[]): LimitsCommand {
  const out: LimitsCommand = { kind: 'limits', errors: [] };
  for (const p of parts) {
    const m = /^([a-z_-]+)=(\S+)$/i.exec(p);
    if (!m) {
      out.errors.push(`"${p}" is not key=value (${LIMIT_KEYS})`);
      continue;
    }
    const key = m[1]!.toLowerCase().replace(/-/g, '_');
    const value = m[2]!;
    const numeric = NUMERIC.find((n) => n.names.includes(key));
    if (numeric) {
      const set = (v: number | null) => Object.assign(out, { [numeric.field]: v });
      if (numeric.offOk && OFF.test(value)) {
        set(null);
        continue;
      }
      try {
        set(validateSetting(numeric.key, Number(value), numeric.names[0]!) as number);
      } catch {
        out.errors.push(`${numeric.names[0]} must be ${describeAllowed(numeric.key)}${numeric.offOk ? ' or off' : ''}`);
      }
      continue;
    }
    switch (key) {
      case 'tool':
      case 'tool_limit': {
        const t = /^([A-Za-z0-9_]+)[:=](\S+)$/.exec(value);
        if (!t) {
          out.errors.push(`tool must be tool=<name>:<n> (n ${TOOL_CAP_RANGE} or off)`);
          break;
        }
        if (!(TOOL_NAMES as readonly string[]).includes(t[1]!)) {
          out.errors.push(`unknown tool "${t[1]}"`);
          break;
        }
        if (OFF.test(t[2]!)) out.toolLimits = { ...out.toolLimits, [t[1]!]: null };
        else {
          const cap = TOOL_CAP.safeParse(t[2]);
          if (cap.success) out.toolLimits = { ...out.toolLimits, [t[1]!]: cap.data };
          else out.errors.push(`tool ${t[1]} must be an integer ${TOOL_CAP_RANGE} or off`);
        }
        break;
      }
      case 'on_limit':
        try {
          out.onLimit = validateSetting('on_limit', value, 'on-limit') as RequestLimits['on_limit'];
        } catch {
          out.errors.push(`on-limit must be ${describeAllowed('on_limit')}`);
        }
        break;
      default:
        out.errors.push(`unknown limit "${m[1]}" (${LIMIT_KEYS})`);
    }
  }
  return out;
}

export function isLimitsQuery(c: LimitsCommand): boolean {
  return Object.keys(c).every((k) => k === 'kind' || k === 'errors');
}

/** The limits after the command; cleared optional limits are absent. */
export function applyLimitsCommand(l: RequestLimits, c: LimitsCommand): RequestLimits {
  const next: RequestLimits = { ...l, tool_limits: { ...l.tool_limits } };
  const opt = <K extends 'max_tool_calls' | 'max_time' | 'max_cost' | 'max_device_config_calls' | 'max_diagnostic_calls'>(
    k: K,
    v: number | null | undefined,
  ) => {
    if (v === null) delete next[k];
    else if (v !== undefined) next[k] = v;
  };
  if (c.iterations !== undefined) next.max_iterations = c.iterations;
  opt('max_tool_calls', c.tools);
  opt('max_time', c.time);
  opt('max_cost', c.cost);
  opt('max_device_config_calls', c.configCalls);
  opt('max_diagnostic_calls', c.diagnosticCalls);
  for (const [name, n] of Object.entries(c.toolLimits ?? {})) {
    if (n === null) delete next.tool_limits[name];
    else next.tool_limits[name] = n;
  }
  if (c.onLimit) next.on_limit = c.onLimit;
  if (c.parallel !== undefined) next.max_parallel_tools = c.parallel;
  if (c.retries !== undefined) next.max_retries_per_tool = c.retries;
  return next;
}

/** For AgentSession.setLimits: cleared optional limits are given as undefined. */
export function limitsPatch(next: RequestLimits): Partial<RequestLimits> {
  return {
    ...next,
    max_tool_calls: next.max_tool_calls,
    max_time: next.max_time,
    max_cost: next.max_cost,
    max_device_config_calls: next.max_device_config_calls,
    max_diagnostic_calls: next.max_diagnostic_calls,
  };
}

/** One line with every limit, for the notice. */
export function limitsLine(l: RequestLimits): string {
  const tools = Object.entries(l.tool_limits).map(([k, v]) => `${k}:${v}`);
  return [
    `iterations ${l.max_iterations}`,
    `tools ${l.max_tool_calls ?? '∞'}`,
    `time ${l.max_time ? `${l.max_time}s` : '∞'}`,
    `cost ${l.max_cost !== undefined ? `$${l.max_cost}` : '∞'}`,
    ...(tools.length ? [`per tool ${tools.join(', ')}`] : []),
    `config ${l.max_device_config_calls ?? '∞'}`,
    `diagnostic ${l.max_diagnostic_calls ?? '∞'}`,
    `parallel ${l.max_parallel_tools ?? LIMIT_DEFAULTS.max_parallel_tools}`,
    `retries ${toolRetries(l)}`,
    `on limit: ${l.on_limit}`,
  ].join(', ');
}

export const limitsCommand: SlashCommand = {
  name: 'limits',
  usage: '[key=value …]',
  description: 'show or set per-request limits (keys: /limits)',
  run(args, ctx) {
    const cmd = parseLimitsArgs(args.split(/\s+/).filter(Boolean));
    if (cmd.errors.length) return ctx.notice(`/limits: ${cmd.errors.join('; ')}`, 'error');
    if (isLimitsQuery(cmd))
      return ctx.notice(`Limits per request: ${limitsLine(ctx.state.limits)}\nSet with /limits key=value (${LIMIT_KEYS}; off clears)`);
    const next = applyLimitsCommand(ctx.session?.limits ?? ctx.state.limits, cmd);
    try {
      ctx.session?.setLimits(limitsPatch(next));
    } catch (err) {
      // e.g. cost= for a model without a price: nothing changed
      return ctx.notice(`/limits: ${errorMessage(err)}`, 'error');
    }
    ctx.dispatch({ type: 'set_limits', limits: next });
    ctx.notice(`Limits → ${limitsLine(next)}`);
  },
};

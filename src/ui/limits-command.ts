/**
 * `/limits` in the TUI: every per-request limit, with the flags' ranges.
 *   /limits iterations=10 tools=5 time=120 tool=execute_multiple_device_commands:3
 *           on-limit=fail parallel=2 retries=0 config=2 diagnostic=10
 * `off` clears tools, time, a tool's cap and the config/diagnostic caps. Pure: the App
 * applies the result to the session and the status bar.
 */
import { TOOL_NAMES } from '../agent/modes.js';
import type { RequestLimits } from '../agent/api.js';
import { LIMIT_DEFAULTS, toolRetries } from '../agent/limits.js';

export interface LimitsCommand {
  kind: 'limits';
  iterations?: number;
  /** null: unlimited */
  tools?: number | null;
  time?: number | null;
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
export const LIMIT_KEYS = 'iterations, tools, time, tool=<name>:<n>, on-limit, parallel, retries, config, diagnostic';

export function parseLimitsArgs(parts: string[]): LimitsCommand {
  const out: LimitsCommand = { kind: 'limits', errors: [] };
  const int = (label: string, value: string, min: number, max: number, offOk: boolean): number | null | undefined => {
    if (offOk && OFF.test(value)) return null;
    const n = Number(value);
    if (Number.isInteger(n) && n >= min && n <= max) return n;
    out.errors.push(`${label} must be an integer ${min}..${max}${offOk ? ' or off' : ''}`);
    return undefined;
  };
  for (const p of parts) {
    const m = /^([a-z_-]+)=(\S+)$/i.exec(p);
    if (!m) {
      out.errors.push(`"${p}" is not key=value (${LIMIT_KEYS})`);
      continue;
    }
    const key = m[1]!.toLowerCase().replace(/-/g, '_');
    const value = m[2]!;
    const set = <K extends keyof LimitsCommand>(k: K, v: LimitsCommand[K] | undefined) => {
      if (v !== undefined) out[k] = v;
    };
    switch (key) {
      case 'iterations':
      case 'iter':
      case 'max_iterations':
        set('iterations', int('iterations', value, 1, 100, false) ?? undefined);
        break;
      case 'tools':
      case 'tool_calls':
      case 'max_tool_calls':
        set('tools', int('tools', value, 1, 50, true));
        break;
      case 'time':
      case 'max_time':
        set('time', int('time', value, 1, 86_400, true));
        break;
      case 'tool':
      case 'tool_limit': {
        const t = /^([A-Za-z0-9_]+)[:=](\S+)$/.exec(value);
        if (!t) {
          out.errors.push('tool must be tool=<name>:<n> (n 1..1000 or off)');
          break;
        }
        if (!(TOOL_NAMES as readonly string[]).includes(t[1]!)) {
          out.errors.push(`unknown tool "${t[1]}"`);
          break;
        }
        const n = int(`tool ${t[1]}`, t[2]!, 1, 1000, true);
        if (n !== undefined) out.toolLimits = { ...out.toolLimits, [t[1]!]: n };
        break;
      }
      case 'on_limit':
        if (value === 'fail' || value === 'warn' || value === 'continue') out.onLimit = value;
        else out.errors.push('on-limit must be one of fail|warn|continue');
        break;
      case 'parallel':
      case 'max_parallel_tools':
        set('parallel', int('parallel', value, 1, 20, false) ?? undefined);
        break;
      case 'retries':
      case 'max_retries_per_tool':
        set('retries', int('retries', value, 0, 5, false) ?? undefined);
        break;
      case 'config':
      case 'max_device_config_calls':
        set('configCalls', int('config', value, 1, 1000, true));
        break;
      case 'diagnostic':
      case 'max_diagnostic_calls':
        set('diagnosticCalls', int('diagnostic', value, 1, 1000, true));
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
  const opt = <K extends 'max_tool_calls' | 'max_time' | 'max_device_config_calls' | 'max_diagnostic_calls'>(k: K, v: number | null | undefined) => {
    if (v === null) delete next[k];
    else if (v !== undefined) next[k] = v;
  };
  if (c.iterations !== undefined) next.max_iterations = c.iterations;
  opt('max_tool_calls', c.tools);
  opt('max_time', c.time);
  opt('max_device_config_calls', c.configCalls);
  opt('max_diagnostic_calls', c.diagnosticCalls);
  for (const [name, n] of Object.entries(c.toolLimits ?? {})) {
    if (n === null) delete next.tool_limits[name];
    else next.tool_limits[name] = n;
  }
  if (c.onLimit) next.on_limit = c.onLimit;
  if (c.parallel !== undefined) next.max_parallel_tools = c.parallel;
  if (c.retries !== undefined) {
    next.max_retries_per_tool = c.retries;
    next.retry_on_tool_error = c.retries > 0;
  }
  return next;
}

/** For AgentSession.setLimits: cleared optional limits are given as undefined. */
export function limitsPatch(next: RequestLimits): Partial<RequestLimits> {
  return {
    ...next,
    max_tool_calls: next.max_tool_calls,
    max_time: next.max_time,
    max_device_config_calls: next.max_device_config_calls,
    max_diagnostic_calls: next.max_diagnostic_calls,
  } as Partial<RequestLimits>;
}

/** One line with every limit, for the notice. */
export function limitsLine(l: RequestLimits): string {
  const tools = Object.entries(l.tool_limits).map(([k, v]) => `${k}:${v}`);
  return [
    `iterations ${l.max_iterations}`,
    `tools ${l.max_tool_calls ?? '∞'}`,
    `time ${l.max_time ? `${l.max_time}s` : '∞'}`,
    ...(tools.length ? [`per tool ${tools.join(', ')}`] : []),
    `config ${l.max_device_config_calls ?? '∞'}`,
    `diagnostic ${l.max_diagnostic_calls ?? '∞'}`,
    `parallel ${l.max_parallel_tools ?? LIMIT_DEFAULTS.max_parallel_tools}`,
    `retries ${toolRetries(l)}`,
    `on limit: ${l.on_limit}`,
  ].join(', ');
}

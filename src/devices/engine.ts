/**
 * Runs command batches on many devices at once: filter, connect (or reuse),
 * run, and report one DeviceResult per device. One device's failure or hang
 * never holds up another's result.
 */
import { performance } from 'node:perf_hooks';
import type { Settings } from '../config/schema.js';
import type { Logger } from '../log.js';
import { nullLogger } from '../log.js';
import { errorMessage } from '../errors.js';
import { commandLines, controlCharRefusal, forbiddenMatch, isReadOnly } from './filter.js';
import { DevicePool, POOL_SERVICE_KEY } from './pool.js';
import { ConnectError } from './transport.js';
import { runLimited } from '../core/run-limited.js';
import type { DeviceSession } from './session.js';
import type { DeviceTarget, Resolved } from './target.js';
import type { CommandResult, DeviceResult, DeviceStatus } from './types.js';

export type JobMode = 'exec' | 'read' | 'config' | 'vpcs';

export interface DeviceJob {
  device_name: string;
  resolved: Resolved;
  commands: string[];
}

export interface RunJobsOptions {
  mode: JobMode;
  settings: Settings;
  pool: DevicePool;
  signal?: AbortSignal;
  log?: Logger;
  /** config mode: keep sending lines after a failing one */
  continueOnError?: boolean;
  /** called as each device finishes (progress for long fan-outs) */
  onResult?(r: DeviceResult, done: number, total: number): void;
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/** The pool shared across tool calls of one agent session (ctx.services). */
export function poolFor(services: Map<string, unknown>, settings: Settings, log?: Logger): DevicePool {
  let pool = services.get(POOL_SERVICE_KEY) as DevicePool | undefined;
  if (!pool) {
    pool = new DevicePool({
      openTimeoutMs: settings.connect_timeout_ms,
      commandTimeoutMs: settings.command_timeout_ms,
      confirmAllow: settings.confirm_allow,
      ...(log ? { log } : {}),
    });
    services.set(POOL_SERVICE_KEY, pool);
  }
  return pool;
}

export function deviceStatus(results: CommandResult[]): DeviceStatus {
  const ok = results.filter((r) => r.status === 'success').length;
  if (results.length > 0 && ok === results.length) return 'success';
  return ok > 0 ? 'partial' : 'error';
}

export async function runDeviceJobs(jobs: DeviceJob[], opts: RunJobsOptions): Promise<DeviceResult[]> {
  let done = 0;
  return runLimited(jobs, opts.settings.device_concurrency, async (job) => {
    const r = await runOne(job, opts);
    opts.onResult?.(r, ++done, jobs.length);
    return r;
  });
}

/** Why a command is not sent, or undefined to send it. */
function refusal(command: string, forbidden: string[], readCheck: ((c: string) => boolean) | undefined): string | undefined {
  const ctl = controlCharRefusal(command);
  if (ctl) return ctl;
  const f = forbiddenMatch(command, forbidden);
  if (f !== undefined) return `matches forbidden command "${f}" (settings.forbidden_commands)`;
  if (readCheck && !readCheck(command)) return 'not a read-only command (show/display/ping); use execute_multiple_device_config_commands';
  return undefined;
}

async function runOne(job: DeviceJob, opts: RunJobsOptions): Promise<DeviceResult> {
  const t0 = performance.now();
  const log = opts.log ?? nullLogger;
  const done = (r: Omit<DeviceResult, 'duration_ms' | 'status'> & { status?: DeviceStatus }): DeviceResult => ({
    ...r,
    status: r.status ?? deviceStatus(r.results),
    duration_ms: round(performance.now() - t0),
  });
  if (!job.resolved.ok) {
    return done({ device_name: job.device_name, status: 'error', results: [], blocked: [], error: job.resolved.error });
  }
  const target: DeviceTarget = job.resolved.target;
  const base = { device_name: target.name, transport: target.transport };

  const readCheck = opts.mode === 'read' ? (c: string) => isReadOnly(c, target.platform) : undefined;
  const { blocked, toSend, merge } = screen(job.commands, opts.settings.forbidden_commands, readCheck);
  if (toSend.length === 0) {
    return done({
      ...base,
      status: 'error',
      results: merge([]),
      blocked,
      error: blocked.length > 0 ? 'every command was blocked; nothing was sent' : 'no commands given',
    });
  }

  const deadline = t0 + opts.settings.session_timeout_ms;
  let session: DeviceSession;
  const reused = opts.pool.has(target);
  try {
    session = await opts.pool.acquire(target, opts.signal);
  } catch (err) {
    log.warn('device connect failed', { device: target.name, error: errorMessage(err) });
    return done({
      ...base,
      status: 'error',
      results: merge(toSend.map((c) => notRun(c, 'not sent: no session'))),
      blocked,
      error: `${target.host}:${target.port}: ${errorMessage(err)}`,
      // the connection itself failed: not one line reached the device, so the call may run again
      ...(err instanceof ConnectError && err.transient ? { transient: true as const, unsent: true as const } : {}),
    });
  }
  const platform = session.platform;
  const refused = platformRefusal(opts.mode, target, platform, toSend);
  if (refused) {
    const results = merge(toSend.map((c) => notRun(c, refused.bad.includes(c) ? READ_ONLY_AFTER_DETECTION : 'not sent')));
    return done({ ...base, platform, status: 'error', results, blocked: [...blocked, ...refused.bad], error: refused.error });
  }

  // one console round: the lines of one job, back to back on one session (what "one round per device" counts)
  log.debug('device round', { device: target.name, mode: opts.mode, commands: toSend.length });
  let sent: CommandResult[] = [];
  let error: string | undefined;
  if (opts.mode === 'config') {
    const r = await session.configure(toSend, {
      continueOnError: opts.continueOnError ?? false,
      deadline,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    sent = r.results;
    error = r.error;
  } else {
    ({ sent, error, session } = await sendEach(session, toSend, { opts, target, reused, deadline }));
  }
  if (!session.usable) opts.pool.drop(target);
  const results = merge(sent);
  return done({ ...base, platform, results, blocked, ...(error ? { error } : {}) });
}

/** Safety first: nothing blocked is ever sent. `merge` puts the sent lines' results back among the blocked ones, in order. */
function screen(commands: string[], forbidden: string[], readCheck: ((c: string) => boolean) | undefined) {
  const slots: (CommandResult | string)[] = [];
  const blocked: string[] = [];
  for (const c of commands.flatMap(commandLines)) {
    const why = refusal(c, forbidden, readCheck);
    if (why !== undefined) {
      blocked.push(c);
      slots.push({ command: c, status: 'blocked', output: '', error: `blocked: ${why}; not sent`, duration_ms: 0 });
    } else slots.push(c);
  }
  const toSend = slots.filter((s): s is string => typeof s === 'string');
  const merge = (sent: CommandResult[]): CommandResult[] => {
    let i = 0;
    return slots.map((s) => (typeof s === 'string' ? (sent[i++] ?? notRun(s, 'not sent')) : s));
  };
  return { blocked, toSend, merge };
}

const READ_ONLY_AFTER_DETECTION = 'blocked: not a read-only command for this platform; not sent';

/** Why the console just reached may not run the batch (`bad`: the lines blocked for it), or undefined to send. */
function platformRefusal(mode: JobMode, target: DeviceTarget, platform: DeviceSession['platform'], toSend: string[]) {
  if (mode === 'vpcs' && platform !== 'vpcs')
    return {
      bad: [] as string[],
      error: `${target.name} is not a VPCS node (prompt looks like ${platform}); use the device command tools`,
    };
  if (mode === 'read' && !target.platform && platform !== 'cisco_ios') {
    // The platform was only known after connecting: re-check read-only commands for it.
    const bad = toSend.filter((c) => !isReadOnly(c, platform));
    if (bad.length > 0) return { bad, error: 'read-only check failed after platform detection; nothing was sent' };
  }
  return undefined;
}

/**
 * Exec and read lines, one at a time within the session's deadline; a pooled console that died
 * while idle is reconnected once (the session returned is the one in use at the end).
 */
async function sendEach(
  session: DeviceSession,
  toSend: string[],
  { opts, target, reused, deadline }: { opts: RunJobsOptions; target: DeviceTarget; reused: boolean; deadline: number },
): Promise<{ sent: CommandResult[]; error: string | undefined; session: DeviceSession }> {
  const sent: CommandResult[] = [];
  let error: string | undefined;
  for (const [i, c] of toSend.entries()) {
    const left = deadline - performance.now();
    if (opts.signal?.aborted) {
      sent.push(...toSend.slice(i).map((x) => notRun(x, 'aborted before sending', 'aborted')));
      error = 'aborted';
      break;
    }
    if (left <= 0) {
      sent.push(
        ...toSend.slice(i).map((x) => notRun(x, `not sent: session timeout (${opts.settings.session_timeout_ms} ms) reached`, 'timeout')),
      );
      error = 'session timeout';
      break;
    }
    const cutBySession = left < opts.settings.command_timeout_ms;
    let r = await session.run(c, {
      timeoutMs: Math.min(opts.settings.command_timeout_ms, left),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    // The wait was the session's remainder, not the command's own timeout: name the limit that was reached.
    if (cutBySession && r.status === 'timeout') {
      r = { ...r, error: `session timeout (${opts.settings.session_timeout_ms} ms) reached during this line; ${r.error ?? ''}`.trimEnd() };
    }
    // A pooled console that died while idle: reconnect once and resend.
    if (i === 0 && reused && !session.usable && r.status === 'error' && r.output === '') {
      try {
        session = await opts.pool.acquire(target, opts.signal);
        r = await session.run(c, {
          timeoutMs: Math.min(opts.settings.command_timeout_ms, deadline - performance.now()),
          ...(opts.signal ? { signal: opts.signal } : {}),
        });
      } catch (err) {
        r = { ...r, error: `${r.error}; reconnect failed: ${errorMessage(err)}` };
      }
    }
    sent.push(r);
    if (!session.usable) {
      sent.push(...toSend.slice(i + 1).map((x) => notRun(x, `not sent: ${session.closeReason ?? 'session lost'}`)));
      error = `session lost: ${session.closeReason ?? 'console stopped answering'}`;
      break;
    }
  }
  return { sent, error, session };
}

function notRun(command: string, why: string, status: CommandResult['status'] = 'error'): CommandResult {
  return { command, status, output: '', error: why, duration_ms: 0 };
}

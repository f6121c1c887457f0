/**
 * Verification of a configuration change against a baseline (docs/tools.md, Verification):
 * before the change, the operational state of the devices it touches and of their directly
 * linked routers (src/check/state.ts); after it, the same devices re-read until two reads in a
 * row agree (not before verify_quiet when the change moved routing) or verify_timeout passes,
 * then compared. A regression is something of the baseline
 * missing or worse that the change's own lines do not name; those it names are `intended`.
 * A verification that cannot decide (a device unreachable, a platform without readers) is
 * `error` with the reason, never `pass`.
 */
import { poolFor } from '../../devices/engine.js';
import type { Topology } from '../../gns3/types.js';
import {
  intendedBy,
  linkedNeighbours,
  readStates,
  regressionsOf,
  routingMoved,
  sameStates,
  type DeviceState,
  type Regression,
} from '../../check/state.js';
import type { ToolContext } from '../types.js';
import type { Verification } from '../../core/verification.js';
import { checksAfter, checksBaseline, type ChecksBaseline } from '../../check/verify-checks.js';
import { readable, takeRead } from './pre-change-read.js';

export type { Verification } from '../../core/verification.js';
export { verificationLine } from '../../core/verification.js';

export interface Baseline {
  topology: Topology;
  /** the devices the change touches, then their linked routers */
  devices: string[];
  states: DeviceState[];
  /** the session's check file run before the change (--checks / the checks setting) */
  checks?: ChecksBaseline;
}

export { readable } from './pre-change-read.js';

/**
 * The baseline of the devices a call changes and their linked routers. The states read
 * with the call's preview (./pre-change-read.ts, the same console round) are taken as they
 * are; only what that read did not cover is read now.
 */
export async function takeBaseline(touched: readonly string[], ctx: ToolContext): Promise<Baseline> {
  const pre = takeRead(ctx.services, ctx.callId);
  const shared = pre?.baseline ? pre.states : undefined;
  const topology = pre?.baseline ? pre.topology : await (await ctx.project()).getTopology(ctx.signal);
  const devices = [...touched, ...linkedNeighbours(topology, touched).filter((n) => readable(topology, n))];
  const missing = devices.filter((d) => !shared?.has(d));
  const [read, checks] = await Promise.all([readStates(missing, stateContext(topology, ctx)), checksBaseline(checksContext(ctx))]);
  const states = devices.map((d) => shared?.get(d) ?? read[missing.indexOf(d)]!);
  ctx.recordBaseline?.(states, ctx.callId);
  return { topology, devices, states, ...(checks ? { checks } : {}) };
}

const stateContext = (topology: Topology, ctx: ToolContext) => ({
  topology,
  settings: ctx.settings,
  pool: poolFor(ctx.services, ctx.settings, ctx.log),
  signal: ctx.signal,
  log: ctx.log,
});

const checksContext = (ctx: ToolContext) => ({ ...ctx, pool: poolFor(ctx.services, ctx.settings, ctx.log) });

const until = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

/**
 * Re-reads until two reads agree or the timeout; compares the last read with the baseline. When
 * the change moved an interface or an adjacency, two equal reads count only after `quietMs`: OSPF
 * paces a router's new LSA to one per 5 s and resends an unacknowledged one after 5 s (FRR and IOS
 * defaults) — on FRR 8.4 a router two hops away lost a route 8–9.5 s after a shutdown, with the
 * LSA waiting on the sender's retransmission list — so earlier equal reads are not yet the
 * settled lab.
 */
export async function verifyChange(
  base: Baseline,
  commands: ReadonlyMap<string, readonly string[]>,
  ctx: ToolContext,
  opts: { timeoutMs: number; quietMs: number; pollMs?: number },
): Promise<Verification> {
  const t0 = performance.now();
  const cannot = base.states.find((s) => s.error !== undefined);
  if (cannot)
    return { status: 'error', regressions: [], intended: [], settle_ms: 0, reason: `no baseline for ${cannot.device}: ${cannot.error}` };
  if (base.checks && 'error' in base.checks)
    return { status: 'error', regressions: [], intended: [], settle_ms: 0, reason: base.checks.error };
  const c = stateContext(base.topology, ctx);
  let last = await readStates(base.devices, c);
  for (;;) {
    if (ctx.signal.aborted) break;
    const left = opts.timeoutMs - (performance.now() - t0);
    if (left <= 0) break;
    await until(Math.min(opts.pollMs ?? 1_000, left), ctx.signal);
    const next = await readStates(base.devices, c);
    const stable = sameStates(last, next);
    last = next;
    const propagating = performance.now() - t0 < opts.quietMs && routingMoved(base.states, next);
    if (stable && !propagating) break;
  }
  const settle_ms = Math.round(performance.now() - t0);
  const lost = last.find((s) => s.error !== undefined);
  if (lost)
    return {
      status: 'error',
      regressions: [],
      intended: [],
      settle_ms,
      reason: `cannot read ${lost.device} after the change: ${lost.error}`,
    };
  const regressions: Regression[] = [];
  const intended: Regression[] = [];
  base.states.forEach((before, i) => {
    for (const r of regressionsOf(before, last[i]!)) (intendedBy(r, commands.get(before.device)) ? intended : regressions).push(r);
  });
  // the check file states what must stay true: a check that stopped passing is never intended
  const checked = base.checks ? await checksAfter(base.checks, checksContext(ctx)) : { regressions: [] };
  if ('error' in checked) return { status: 'error', regressions, intended, settle_ms, reason: checked.error };
  regressions.push(...checked.regressions);
  return { status: regressions.length > 0 ? 'regressed' : 'pass', regressions, intended, settle_ms };
}

/**
 * The lab's operational state as eval compares it (src/check/state.ts: interfaces, OSPF and
 * BGP neighbours, selected routes): the baseline read once when the eval starts, and a wait —
 * on the state, never a fixed sleep — until the lab reads as the baseline again or the
 * verify_timeout passes. What is still missing or worse then is a run's regressions — and,
 * with `--checks FILE` (the checks setting), every check of the file that passed at the start
 * and does not pass now (src/check/verify-checks.ts).
 */
import { readStates, regressionsOf, type DeviceState, type Regression } from '../check/state.js';
import { checksBaseline, checkRegressions, type ChecksBaseline } from '../check/verify-checks.js';
import { runChecks } from '../check/run.js';
import { poolFor } from '../devices/engine.js';
import type { ToolContext } from '../tools/types.js';

export interface LabBaseline {
  devices: string[];
  states: DeviceState[];
  /** the check file's verdicts at the start (absent without --checks) */
  checks?: ChecksBaseline;
}

const checksContext = (ctx: ToolContext) => ({
  settings: ctx.settings,
  project: () => ctx.project(),
  pool: poolFor(ctx.services, ctx.settings, ctx.log),
  signal: ctx.signal,
  log: ctx.log,
});

async function read(devices: readonly string[], ctx: ToolContext): Promise<DeviceState[]> {
  const topology = await (await ctx.project()).getTopology(ctx.signal);
  return readStates(devices, {
    topology,
    settings: ctx.settings,
    pool: poolFor(ctx.services, ctx.settings, ctx.log),
    signal: ctx.signal,
    log: ctx.log,
  });
}

export async function readBaseline(devices: readonly string[], ctx: ToolContext): Promise<LabBaseline> {
  const checks = await checksBaseline(checksContext(ctx));
  return { devices: [...devices], states: await read(devices, ctx), ...(checks ? { checks } : {}) };
}

export type Settled = { regressions: Regression[] } | { error: string };

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

/**
 * Re-reads the baseline's devices until nothing of the baseline is missing or worse, or
 * `timeoutMs` passes; the regressions of the last read. A device that cannot be read (now or
 * in the baseline) is an error: no verdict comes from it. The wait ends on the first read equal
 * to the baseline, so the poll only sets how late after that moment it notices: a quarter
 * second (a read is a few show commands per router), not a whole one per run.
 */
export async function settleToBaseline(base: LabBaseline, ctx: ToolContext, timeoutMs: number, pollMs = 250): Promise<Settled> {
  const broken = base.states.find((s) => s.error !== undefined);
  if (broken) return { error: `no baseline for ${broken.device}: ${broken.error}` };
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const now = await read(base.devices, ctx);
    const lost = now.find((s) => s.error !== undefined);
    const regressions = lost ? [] : base.states.flatMap((before, i) => regressionsOf(before, now[i]!));
    if (!lost && regressions.length === 0) return withChecks(base, ctx, regressions);
    if (performance.now() >= deadline || ctx.signal.aborted)
      return lost ? { error: `cannot read ${lost.device}: ${lost.error}` } : withChecks(base, ctx, regressions);
    await pause(pollMs, ctx.signal);
  }
}

/** The state's regressions and the check file's: a check that passed at the start and does not pass now. */
async function withChecks(base: LabBaseline, ctx: ToolContext, regressions: Regression[]): Promise<Settled> {
  if (!base.checks) return { regressions };
  if ('error' in base.checks) return { error: base.checks.error };
  const c = checksContext(ctx);
  const after = await runChecks(base.checks.checks, { ...c, project: await c.project() });
  return { regressions: [...regressions, ...checkRegressions(base.checks.checks, base.checks.report, after)] };
}

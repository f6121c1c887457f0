/**
 * The one console round per device before a configuration change (docs/tools.md,
 * Verification after a change): a device the call changes gets its capture command (the
 * configuration the approval preview diffs and the checkpoint keeps) and the state readers'
 * commands (the baseline, the ones `check --init` uses) back to back in one job; its directly
 * linked routers get the state readers only; every device in parallel. A change set's facts
 * (device.interfaces) come from the same interface answer. What was read is kept for the
 * call (by its id) until the call's run takes its baseline from it, so the devices are not
 * read a second time between the tool call and the apply.
 */
import type { Topology } from '../../gns3/types.js';
import { configOf, type CaptureContext } from '../../checkpoints/capture.js';
import type { Capture } from '../../checkpoints/types.js';
import { DRIVERS, type PlatformName } from '../../devices/drivers.js';
import { poolFor, runDeviceJobs, type DeviceJob } from '../../devices/engine.js';
import type { DeviceResult } from '../../devices/types.js';
import { findNode, platformHint, resolveTarget } from '../../devices/target.js';
import { runLimited } from '../../core/run-limited.js';
import { errorMessage } from '../../errors.js';
import { stateCommands } from '../../check/init.js';
import { hasStateReaders, linkedNeighbours, noReaders, stateOf, unreadState, type DeviceState } from '../../check/state.js';

export interface PreChangeRead {
  topology: Topology;
  /** the changed devices' configurations (config asked) */
  captures: Map<string, Capture>;
  /** the state read per device: the changed devices and, with `baseline`, their linked routers */
  states: Map<string, DeviceState>;
  /** the platform each device's console showed (absent: not reached) */
  platforms: Map<string, PlatformName>;
  /** the states are a full baseline (every reader's command), not the interfaces alone */
  baseline: boolean;
}

export interface PreChangeWanted {
  /** the capture command of each changed device */
  config: boolean;
  /** the state readers on the changed devices and their linked routers */
  baseline: boolean;
  /** the interface brief of each changed device (a template's facts), when no baseline is read */
  interfaces?: boolean;
}

/** Routers and switches have readers; a neighbour that is a PC adds nothing to decide on and is left out. */
export const readable = (topology: Topology, name: string) => {
  const p = platformHint(findNode(topology, name));
  return p !== 'vpcs' && p !== 'linux';
};

interface Planned {
  device: string;
  platform?: PlatformName;
  capture?: string;
  stateCmds: string[];
  /** why the device is not read (no console round): its capture and state carry it */
  error?: { capture: Capture; state: DeviceState };
  job?: DeviceJob;
}

function stateCmdsFor(p: PlatformName, changed: boolean, want: PreChangeWanted): string[] {
  if (!hasStateReaders(p)) return [];
  if (want.baseline) return stateCommands(p);
  return changed && want.interfaces ? stateCommands(p).slice(0, 1) : [];
}

async function plan(device: string, changed: boolean, topology: Topology, want: PreChangeWanted, ctx: CaptureContext): Promise<Planned> {
  const resolved = resolveTarget(topology, device, ctx.settings);
  if (!resolved.ok)
    return { device, stateCmds: [], error: { capture: { error: resolved.error }, state: unreadState(device, resolved.error) } };
  const hinted = resolved.target.platform;
  // a platform known to have nothing to read is said so without opening its console
  if (hinted && !DRIVERS[hinted].capture && !hasStateReaders(hinted))
    return {
      device,
      platform: hinted,
      stateCmds: [],
      error: {
        capture: { platform: hinted, error: `no capture command for ${hinted} devices` },
        state: unreadState(device, noReaders(hinted)),
      },
    };
  let platform: PlatformName;
  try {
    platform = (await poolFor(ctx.services, ctx.settings, ctx.log).acquire(resolved.target, ctx.signal)).platform;
  } catch (err) {
    const why = errorMessage(err).split('\n')[0] ?? 'error';
    return {
      device,
      stateCmds: [],
      error: { capture: { error: errorMessage(err) }, state: unreadState(device, `cannot reach ${device}: ${why}`) },
    };
  }
  const capture = changed && want.config ? DRIVERS[platform].capture : undefined;
  const stateCmds = stateCmdsFor(platform, changed, want);
  const commands = [...(capture ? [capture] : []), ...stateCmds];
  const target = { ...resolved.target, platform };
  return {
    device,
    platform,
    ...(capture ? { capture } : {}),
    stateCmds,
    ...(commands.length > 0 ? { job: { device_name: device, resolved: { ok: true as const, target }, commands } } : {}),
  };
}

function captureOf(p: Planned, r: DeviceResult | undefined): Capture {
  if (p.error) return p.error.capture;
  if (!p.capture) return { ...(p.platform ? { platform: p.platform } : {}), error: `no capture command for ${p.platform} devices` };
  const out = r?.results.find((x) => x.command === p.capture);
  if (out?.status === 'success') return { platform: p.platform!, config: configOf(p.platform!, out.output) };
  return { platform: p.platform!, error: `${p.capture}: ${out?.error ?? r?.error ?? out?.status ?? 'not read'}` };
}

function stateFrom(p: Planned, r: DeviceResult | undefined): DeviceState {
  if (p.error) return p.error.state;
  if (p.stateCmds.length === 0) return unreadState(p.device, noReaders(p.platform ?? 'unknown'));
  const answers = new Map((r?.results ?? []).filter((x) => p.stateCmds.includes(x.command)).map((x) => [x.command, x]));
  if (![...answers.values()].some((x) => x.status === 'success')) return unreadState(p.device, r?.error ?? `cannot read ${p.device}`);
  return stateOf(p.device, p.platform!, (c) => (answers.get(c)?.status === 'success' ? answers.get(c)!.output : undefined));
}

/** Reads `changed` (and, with a baseline, their linked routers) in one console round per device, in parallel. */
export async function readBeforeChange(
  changed: readonly string[],
  topology: Topology,
  want: PreChangeWanted,
  ctx: CaptureContext,
): Promise<PreChangeRead> {
  const touched = [...new Set(changed)];
  const neighbours = want.baseline ? linkedNeighbours(topology, touched).filter((n) => readable(topology, n)) : [];
  const all = [...touched.map((d) => ({ d, changed: true })), ...neighbours.map((d) => ({ d, changed: false }))];
  const planned = await runLimited(all, ctx.settings.device_concurrency, ({ d, changed: c }) => plan(d, c, topology, want, ctx));
  const jobs = planned.flatMap((p) => (p.job ? [p.job] : []));
  const results = await runDeviceJobs(jobs, {
    mode: 'read',
    settings: ctx.settings,
    pool: poolFor(ctx.services, ctx.settings, ctx.log),
    signal: ctx.signal,
    log: ctx.log,
  });
  const resultOf = (p: Planned) => (p.job ? results[jobs.indexOf(p.job)] : undefined);
  const captures = new Map<string, Capture>();
  const states = new Map<string, DeviceState>();
  const platforms = new Map<string, PlatformName>();
  planned.forEach((p, i) => {
    if (p.platform) platforms.set(p.device, p.platform);
    const r = resultOf(p);
    if (all[i]!.changed && want.config) captures.set(p.device, captureOf(p, r));
    if (all[i]!.changed ? want.baseline || want.interfaces : want.baseline) states.set(p.device, stateFrom(p, r));
  });
  return { topology, captures, states, platforms, baseline: want.baseline };
}

/** The reads kept for calls not yet run (a denied call's is never taken: the oldest go first). */
const KEY = 'changeset.pre-change-reads';
const KEEP = 32;

function kept(services: Map<string, unknown>): Map<string, PreChangeRead> {
  let m = services.get(KEY) as Map<string, PreChangeRead> | undefined;
  if (!m) {
    m = new Map();
    services.set(KEY, m);
  }
  return m;
}

export function keepRead(services: Map<string, unknown>, callId: string, read: PreChangeRead): void {
  const m = kept(services);
  m.delete(callId);
  m.set(callId, read);
  for (const k of m.keys()) if (m.size > KEEP) m.delete(k);
}

export const keptRead = (services: Map<string, unknown>, callId: string | undefined): PreChangeRead | undefined =>
  callId === undefined ? undefined : kept(services).get(callId);

/** The call's read, once: a retried run reads again (the first attempt may have changed the devices). */
export function takeRead(services: Map<string, unknown>, callId: string | undefined): PreChangeRead | undefined {
  const r = keptRead(services, callId);
  if (callId !== undefined) kept(services).delete(callId);
  return r;
}

/**
 * Captures devices' configurations for checkpoints: every device at once (up to
 * device_concurrency), through the session's pooled consoles, with the driver's
 * capture command (src/devices/drivers.ts `capture`). A device that cannot be
 * captured gets an `error`, never an exception: a failed capture must not stop
 * the change it precedes, only be reported.
 */
import type { Settings } from '../config/schema.js';
import type { ProjectScope } from '../gns3/types.js';
import type { Logger } from '../log.js';
import { DRIVERS } from '../devices/drivers.js';
import { poolFor } from '../devices/engine.js';
import { runLimited } from '../core/run-limited.js';
import { resolveTarget } from '../devices/target.js';
import { errorMessage } from '../errors.js';
import type { Capture } from './types.js';
import { vpcsConfigOf } from './vpcs.js';

/** What a capture needs of the call it precedes (a tool's ToolContext is one). */
export interface CaptureContext {
  settings: Settings;
  signal: AbortSignal;
  log: Logger;
  /** the session's GNS3 project */
  project(): Promise<ProjectScope>;
  /** the session's long-lived services: the device pool is one */
  services: Map<string, unknown>;
}

/** The configuration text a checkpoint keeps for a device's capture output. */
export function configOf(platform: string, output: string): string {
  if (platform === 'vpcs') return vpcsConfigOf(output);
  return output.replace(/\r/g, '').replace(/\s+$/, '');
}

/** Captures each named device; the map has one entry per name (as given). */
export async function captureDevices(names: string[], ctx: CaptureContext): Promise<Map<string, Capture>> {
  const out = new Map<string, Capture>();
  const unique = [...new Set(names)];
  if (unique.length === 0) return out;
  let topology;
  try {
    topology = await (await ctx.project()).getTopology(ctx.signal);
  } catch (err) {
    for (const n of unique) out.set(n, { error: `cannot read the topology: ${errorMessage(err)}` });
    return out;
  }
  const pool = poolFor(ctx.services, ctx.settings, ctx.log);
  const results = await runLimited(unique, ctx.settings.device_concurrency, async (name): Promise<Capture> => {
    const resolved = resolveTarget(topology, name, ctx.settings);
    if (!resolved.ok) return { error: resolved.error };
    // a platform known to have no capture command is said so without opening its console
    const hinted = resolved.target.platform;
    if (hinted && !DRIVERS[hinted].capture) return { platform: hinted, error: `no capture command for ${hinted} devices` };
    try {
      const session = await pool.acquire(resolved.target, ctx.signal);
      const command = DRIVERS[session.platform].capture;
      if (!command) return { platform: session.platform, error: `no capture command for ${session.platform} devices` };
      ctx.log.debug('device round', { device: name, mode: 'capture', commands: 1 });
      const r = await session.run(command, { timeoutMs: ctx.settings.command_timeout_ms, signal: ctx.signal });
      if (!session.usable) pool.drop(resolved.target);
      if (r.status !== 'success') return { platform: session.platform, error: `${command}: ${r.error ?? r.status}` };
      return { platform: session.platform, config: configOf(session.platform, r.output) };
    } catch (err) {
      return { error: errorMessage(err) };
    }
  });
  unique.forEach((n, i) => out.set(n, results[i]!));
  return out;
}

/**
 * Plumbing shared by the device tools: resolve device names through the
 * project's topology, run the batch on the shared pool, and answer a batch
 * outcome (../batch.ts) with every device's result.
 */
import type { DeviceJob, JobMode } from '../../devices/engine.js';
import { poolFor, runDeviceJobs } from '../../devices/engine.js';
import { resolveTarget } from '../../devices/target.js';
import type { DeviceResult } from '../../devices/types.js';
import { failure, type ToolContext, type ToolOutcome } from '../types.js';
import type { Topology } from '../../gns3/types.js';
import { isTransientError } from '../retry.js';
import { errorMessage } from '../../errors.js';
import { batchOutcome } from '../batch.js';
import { capOutput } from '../cap.js';
import { noun } from '../../core/plural.js';

/** Per-command output cap: keeps one chatty `show` from crowding out the other devices' outputs. */
export const MAX_OUTPUT_CHARS = 12_000;

export interface DeviceBatch {
  device_name: string;
  commands: string[];
}

export async function runBatch(
  batches: DeviceBatch[],
  mode: JobMode,
  ctx: ToolContext,
  opts: { continueOnError?: boolean } = {},
): Promise<ToolOutcome> {
  let topology: Topology;
  try {
    topology = await (await ctx.project()).getTopology(ctx.signal);
  } catch (err) {
    // the controller failed before any device was reached: nothing was sent (./retry.ts may run the call again)
    if (!isTransientError(err)) throw err;
    return { ...failure(errorMessage(err).split('\n')[0] ?? 'error', {}, { code: 'unreachable', transient: true }), unsent: true };
  }
  const jobs: DeviceJob[] = batches.map((b) => ({
    device_name: b.device_name,
    commands: b.commands,
    resolved: resolveTarget(topology, b.device_name, ctx.settings),
  }));
  const results = await runDeviceJobs(jobs, {
    mode,
    settings: ctx.settings,
    pool: poolFor(ctx.services, ctx.settings, ctx.log),
    signal: ctx.signal,
    log: ctx.log,
    ...(opts.continueOnError !== undefined ? { continueOnError: opts.continueOnError } : {}),
    ...(ctx.progress
      ? {
          onResult: (r: DeviceResult, done: number, total: number) =>
            ctx.progress!({ done, total, message: `${r.device_name}: ${r.status} (${done}/${total} ${noun(total, 'device')})` }),
        }
      : {}),
  });
  return formatResults(results, ctx.wholeOutput ? Infinity : MAX_OUTPUT_CHARS);
}

/** A device's failure for the display line: its own error, else its first failed command's. */
function deviceError(r: DeviceResult): string | undefined {
  const bad = r.error ?? r.results.find((c) => c.status !== 'success')?.error;
  return bad === undefined ? undefined : `${r.device_name}: ${bad}`;
}

/** `{"status":…,"devices":[DeviceResult…]}` with every command's output capped at `maxChars`. */
export function formatResults(results: DeviceResult[], maxChars = MAX_OUTPUT_CHARS): ToolOutcome {
  const devices = results.map((d) => ({
    ...d,
    results: d.results.map(({ omitted_chars, ...r }) => ({ ...r, output: capOutput(r.output, maxChars, omitted_chars) })),
  }));
  return batchOutcome(devices, { devices }, { noun: 'devices', errorOf: deviceError });
}

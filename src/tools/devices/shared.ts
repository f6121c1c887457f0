/**
 * Plumbing shared by the device tools: resolve device names through the
 * project's topology, run the batch on the shared pool, and print compact JSON.
 */
import { z } from 'zod';
import type { DeviceJob, JobMode } from '../../devices/engine.js';
import { poolFor, runDeviceJobs } from '../../devices/engine.js';
import { resolveTarget } from '../../devices/target.js';
import type { DeviceResult, DeviceStatus } from '../../devices/types.js';
import type { ToolContext } from '../types.js';

/** `{device_configs:[{device_name, commands:[…]}]}`: the arguments of the command tools, with their descriptions. */
export function deviceCommandsSchema(describe: { device_name: string; commands: string }) {
  const deviceConfig = z.object({
    device_name: z.string().min(1).describe(describe.device_name),
    commands: z.array(z.string()).min(1).max(50).describe(describe.commands),
  });
  return z.object({ device_configs: z.array(deviceConfig).min(1).max(256) });
}

/** Per-command output cap: keeps one chatty `show` from flooding the model's context. */
export const MAX_OUTPUT_CHARS = 12_000;

export function capOutput(text: string, max = MAX_OUTPUT_CHARS): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.75);
  const tail = max - head;
  return `${text.slice(0, head)}\n… [${text.length - max} characters cut; narrow the command, e.g. "| include …"] …\n${text.slice(-tail)}`;
}

export interface DeviceBatch {
  device_name: string;
  commands: string[];
}

export async function runBatch(
  batches: DeviceBatch[],
  mode: JobMode,
  ctx: ToolContext,
  opts: { continueOnError?: boolean } = {},
): Promise<string> {
  const project = await ctx.project();
  const topology = await project.getTopology(ctx.signal);
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
    ...(ctx.progress ? { onResult: (r: DeviceResult, done: number, total: number) => ctx.progress!({ done, total, message: `${r.device_name}: ${r.status} (${done}/${total} devices)` }) } : {}),
  });
  return formatResults(results);
}

export function overallStatus(results: DeviceResult[]): DeviceStatus {
  if (results.every((r) => r.status === 'success')) return 'success';
  return results.some((r) => r.status !== 'failed') ? 'partial_success' : 'failed';
}

/** `{"status":…,"devices":[DeviceResult…]}` with outputs capped. */
export function formatResults(results: DeviceResult[]): string {
  const devices = results.map((d) => ({ ...d, results: d.results.map((r) => ({ ...r, output: capOutput(r.output) })) }));
  return JSON.stringify({ status: overallStatus(results), devices });
}

/**
 * apply_config_template: one template for many devices (a change set). The dispatch has it
 * prepared first (./prepare.ts: expansion, facts, render, line checks), so the one approval
 * shows what every device will get and a render failure sends nothing; the approved set is
 * then applied — the pilot devices first, the rest only when the pilot succeeded — in
 * parallel within max_parallel_tools, one result per device. docs/tools.md.
 */
import { z } from 'zod';
import { poolFor, runDeviceJobs, type DeviceJob } from '../../devices/engine.js';
import { resolveTarget } from '../../devices/target.js';
import type { DeviceResult } from '../../devices/types.js';
import { errorMessage } from '../../errors.js';
import { defineTool, failure, type ToolContext, type ToolOutcome } from '../types.js';
import { TOOL_TARGETS } from '../targets.js';
import { formatResults } from '../devices/shared.js';
import { linkedNeighbours } from '../../check/state.js';
import { takeBaseline, verificationLine, verifyChange, type Baseline, type Verification } from './verify.js';
import { prepareChangeSet, type RenderedDevice, type RenderedSet } from './prepare.js';

const publicShape = {
  template: z
    .string()
    .min(1)
    .max(20_000)
    .describe(
      'Liquid/Jinja-like template rendered once per device: {{ var }}, {% for %}, {% if %}, filters. ' +
        'Facts: device.name, device.index (1-based), device.platform, device.interfaces (name, address, prefix_length, network, state). ' +
        'One rendered line = one configuration line (no "configure terminal"/"end"); for VPCS, its ip/set lines.',
    )
    .meta({ brief: 'Liquid, rendered per device; facts: device.name/index/platform/interfaces' }),
  devices: z
    .array(z.string().min(1))
    .min(1)
    .max(256)
    .describe('node names and globs, e.g. ["R*"], ["R[1-4]", "PC1"]; expanded against the project nodes')
    .meta({ brief: 'names or globs: R*, R[1-4]' }),
  vars: z.record(z.string(), z.unknown()).optional().describe('variables shared by every device'),
  device_vars: z
    .record(z.string(), z.record(z.string(), z.unknown()))
    .optional()
    .describe('per-device variables over the shared ones, e.g. {"R1": {"area": 1}}'),
  pilot: z.array(z.string().min(1)).max(32).optional().describe('devices of the set applied first; the rest only if the pilot succeeds'),
  verify: z
    .enum(['baseline', 'checks', 'none'])
    .optional()
    .describe("verification after the apply (default baseline; checks: also the session's check file, which must be set)"),
};

/** What the model sends. */
const publicSchema = z.object(publicShape);

/** What the tool runs: the model's arguments plus the set the dispatch rendered (never the model's own `rendered`). */
const schema = z.object({ ...publicShape, rendered: z.unknown().optional() });

type Args = z.infer<typeof schema>;

const isRenderedSet = (v: unknown): v is RenderedSet =>
  typeof v === 'object' && v !== null && Array.isArray((v as RenderedSet).devices) && Array.isArray((v as RenderedSet).pilot);

/** Applies one group of the set; VPCS lines go as execute_vpcs_commands sends them, the others as config lines. */
async function applyDevices(devices: RenderedDevice[], ctx: ToolContext): Promise<DeviceResult[]> {
  if (devices.length === 0) return [];
  const topology = await (await ctx.project()).getTopology(ctx.signal);
  // the set is one tool call: its devices run within the same parallel budget as calls do
  const settings = { ...ctx.settings, device_concurrency: Math.min(ctx.settings.device_concurrency, ctx.settings.max_parallel_tools) };
  const pool = poolFor(ctx.services, ctx.settings, ctx.log);
  const job = (d: RenderedDevice): DeviceJob => ({
    device_name: d.device_name,
    commands: d.commands,
    resolved: resolveTarget(topology, d.device_name, ctx.settings),
  });
  const opts = { settings, pool, signal: ctx.signal, log: ctx.log };
  const pcs = devices.filter((d) => d.platform === 'vpcs');
  const others = devices.filter((d) => d.platform !== 'vpcs');
  // runDeviceJobs answers in its jobs' order
  const [vpcs, config] = await Promise.all([
    runDeviceJobs(pcs.map(job), { ...opts, mode: 'vpcs' }),
    runDeviceJobs(others.map(job), { ...opts, mode: 'config' }),
  ]);
  const byDevice = new Map<RenderedDevice, DeviceResult>([
    ...pcs.map((d, i) => [d, vpcs[i]!] as const),
    ...others.map((d, i) => [d, config[i]!] as const),
  ]);
  return devices.map((d) => byDevice.get(d)!);
}

function notApplied(d: RenderedDevice, why: string): DeviceResult {
  return { device_name: d.device_name, status: 'error', results: [], blocked: [], error: `not applied: ${why}`, duration_ms: 0 };
}

/** The part of a baseline about `devices` and their linked routers (a pilot's share). */
function shareOf(base: Baseline, devices: readonly string[]): Baseline {
  const keep = new Set([...devices, ...linkedNeighbours(base.topology, devices)].map((d) => d.toLowerCase()));
  const idx = base.devices.flatMap((d, i) => (keep.has(d.toLowerCase()) ? [i] : []));
  return { ...base, devices: idx.map((i) => base.devices[i]!), states: idx.map((i) => base.states[i]!) };
}

/** Applies a group, then verifies it against its share of the baseline (none: the apply's own status only). */
async function applyAndVerify(group: RenderedDevice[], base: Baseline | undefined, ctx: ToolContext) {
  const results = await applyDevices(group, ctx);
  if (!base || group.length === 0) return { results };
  const commands = new Map(group.map((d) => [d.device_name, d.commands]));
  const verification = await verifyChange(shareOf(base, [...commands.keys()]), commands, ctx, {
    timeoutMs: ctx.settings.verify_timeout * 1000,
    quietMs: ctx.settings.verify_quiet * 1000,
  });
  return { results, verification };
}

async function applySet(set: RenderedSet, verify: boolean, ctx: ToolContext): Promise<ToolOutcome> {
  const pilot = set.devices.filter((d) => set.pilot.includes(d.device_name));
  const rest = set.devices.filter((d) => !set.pilot.includes(d.device_name));
  const base = verify
    ? await takeBaseline(
        set.devices.map((d) => d.device_name),
        ctx,
      )
    : undefined;
  const first = await applyAndVerify(pilot, base, ctx);
  const failed = first.results.filter((r) => r.status !== 'success');
  const pilotFailed = pilot.length > 0 && (failed.length > 0 || (first.verification !== undefined && first.verification.status !== 'pass'));
  let results: DeviceResult[];
  let verification: Verification | undefined;
  let pilotNote: Record<string, unknown> | undefined;
  if (pilotFailed) {
    const why =
      failed.length > 0
        ? `the pilot did not succeed (${failed.map((r) => `${r.device_name}: ${r.error ?? r.status}`).join('; ')})`
        : `the pilot did not verify (${verificationLine(first.verification!)})`;
    results = [...first.results, ...rest.map((d) => notApplied(d, why))];
    verification = first.verification;
    pilotNote = { devices: set.pilot, status: 'failed', stopped: `the set stopped: ${why}; the other devices were not touched` };
  } else {
    // the rest is verified with the whole set, so a regression the pilot caused late is still seen
    const second = await applyAndVerify(rest, base && rest.length > 0 ? base : undefined, ctx);
    results = [...first.results, ...second.results];
    verification = second.verification ?? first.verification;
    if (pilot.length > 0) pilotNote = { devices: set.pilot, status: 'passed' };
  }
  const out = formatResults(results);
  const data = typeof out.data === 'string' ? { output: out.data } : out.data;
  const extra = {
    expansion: set.expansion,
    ...(set.skipped.length ? { skipped: set.skipped } : {}),
    ...(pilotNote ? { pilot: pilotNote } : {}),
    ...(verification ? { verification } : {}),
  };
  const notes = [
    set.skipped.length ? `${set.skipped.length} skipped (no lines)` : '',
    pilotNote?.status === 'failed' ? 'pilot failed, the rest untouched' : '',
    verification ? verificationLine(verification) : '',
  ].filter(Boolean);
  return {
    ...out,
    data: { ...data, ...extra },
    display: [out.display ?? '', ...notes].join(' · '),
    ...(verification ? { verification } : {}),
  };
}

export const applyConfigTemplate = defineTool({
  name: 'apply_config_template',
  description:
    'Apply one configuration template to many devices (a change set): devices by name or glob (R*, R[1-4]), shared vars and per-device device_vars, ' +
    'facts about each device in the template (device.name, device.index, device.platform, device.interfaces). Every device is rendered before anything is sent: ' +
    'an undefined variable or a refused line stops the whole set. One approval for the set; the pilot devices go first and the rest only if they succeed; ' +
    'the devices are applied in parallel, one result per device. Prefer it over per-device config commands when devices get similar configuration.',
  brief: 'One config template for many devices, one approval; pilot devices first.',
  risk: 'config',
  schema,
  jsonSchema: z.toJSONSchema(publicSchema, { io: 'input', unrepresentable: 'any' }),
  targets: TOOL_TARGETS.apply_config_template,
  prepare: async (args: Args, ctx) => {
    const { rendered: _ignored, ...own } = args;
    // a verification the caller asked to include the check file cannot quietly go without one
    if (own.verify === 'checks' && ctx.settings.checks === undefined)
      return { error: failure('verify "checks" needs a check file (--checks FILE or the checks setting): nothing was sent to any device') };
    const r = await prepareChangeSet(own, ctx);
    return 'error' in r ? r : { args: { ...own, rendered: r.set } };
  },
  run: async (args, ctx) => {
    if (!isRenderedSet(args.rendered)) return failure('apply_config_template was not prepared (internal): nothing was sent');
    try {
      return await applySet(args.rendered, args.verify !== 'none', ctx);
    } catch (err) {
      return failure(errorMessage(err).split('\n')[0] ?? 'error');
    }
  },
});

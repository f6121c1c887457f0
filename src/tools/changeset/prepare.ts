/**
 * Before the one approval: a change set resolved into what it will send. The devices are
 * expanded against the project's nodes, the facts read where the template names them, the
 * template rendered for every device, and every rendered line judged as a configuration
 * line is (one line one command, no control characters, the forbidden-commands filter).
 * One failure anywhere refuses the whole set, so nothing reaches any device. The dispatch
 * (../dispatch.ts) puts the result in the call's arguments as `rendered`, which the
 * approval, the preview, the checkpoint and the apply all read.
 */
import { controlCharRefusal, forbiddenMatch } from '../../devices/filter.js';
import { errorMessage } from '../../errors.js';
import { failure, type ToolContext, type ToolOutcome } from '../types.js';
import { expandDevices } from './expand.js';
import { factsFromRead, needsConsoleFacts, plainFacts } from './facts.js';
import { keepRead, readBeforeChange } from './pre-change-read.js';
import type { Topology } from '../../gns3/types.js';
import { parseError, renderFor, renderedLines, type DeviceFacts } from './render.js';

export interface RenderedDevice {
  device_name: string;
  platform: string;
  commands: string[];
}

/** What the set sends, as the approval shows it and the apply runs it. */
export interface RenderedSet {
  devices: RenderedDevice[];
  /** rendered to no line: not applied, listed */
  skipped: string[];
  /** each pattern of `devices` and what it named */
  expansion: Record<string, string[]>;
  /** the pilot devices (applied first) */
  pilot: string[];
}

export interface ChangeSetArgs {
  template: string;
  devices: string[];
  vars?: Record<string, unknown> | undefined;
  device_vars?: Record<string, Record<string, unknown>> | undefined;
  pilot?: string[] | undefined;
  /** `none`: no baseline is read with the facts */
  verify?: 'baseline' | 'checks' | 'none' | undefined;
}

const NOTHING_SENT = 'nothing was sent to any device';

/** Every device's lines, or the refusal naming the first device and line that cannot be sent. */
function judgeLines(rendered: RenderedDevice[], forbidden: string[]): string | undefined {
  for (const d of rendered) {
    for (const [i, line] of d.commands.entries()) {
      const ctl = controlCharRefusal(line);
      const f = ctl ? undefined : forbiddenMatch(line, forbidden);
      if (ctl || f !== undefined)
        return `${d.device_name} line ${i + 1} "${line.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?')}": ${ctl ?? `matches forbidden command "${f}" (settings.forbidden_commands)`}`;
    }
  }
  return undefined;
}

/**
 * The facts the template uses. Read from the consoles, they come in the one round per device
 * that also reads what the preview diffs and the baseline (kept for the call: not read again).
 */
async function factsOf(args: ChangeSetArgs, devices: string[], ctx: ToolContext, topology: Topology) {
  if (!needsConsoleFacts(args.template)) return { facts: plainFacts(devices, topology), errors: [] as string[] };
  const read = await readBeforeChange(devices, topology, { config: true, baseline: args.verify !== 'none', interfaces: true }, ctx);
  if (ctx.callId !== undefined) keepRead(ctx.services, ctx.callId, read);
  return factsFromRead(devices, read);
}

function renderAll(
  args: ChangeSetArgs,
  facts: DeviceFacts[],
): { ok: true; devices: RenderedDevice[] } | { ok: false; outcome: ToolOutcome } {
  const input = { template: args.template, vars: args.vars ?? {}, device_vars: args.device_vars ?? {} };
  const devices: RenderedDevice[] = [];
  const errors: { device: string; error: string; variable?: string }[] = [];
  for (const f of facts) {
    const r = renderFor(input, f);
    if (r.ok) devices.push({ device_name: f.name, platform: f.platform, commands: renderedLines(r.text) });
    else errors.push({ device: f.name, error: r.error, ...(r.variable ? { variable: r.variable } : {}) });
  }
  if (errors.length === 0) return { ok: true, devices };
  const shown = errors.slice(0, 5).map((e) => `${e.device}: ${e.error}`);
  const more = errors.length > 5 ? ` (and ${errors.length - 5} more)` : '';
  return {
    ok: false,
    outcome: failure(`template failed to render, ${NOTHING_SENT}: ${shown.join('; ')}${more}`, { render_errors: errors }),
  };
}

export async function prepareChangeSet(args: ChangeSetArgs, ctx: ToolContext): Promise<{ set: RenderedSet } | { error: ToolOutcome }> {
  const syntax = parseError(args.template);
  if (syntax !== undefined) return { error: failure(`template does not parse, ${NOTHING_SENT}: ${syntax}`) };
  let topology: Topology;
  try {
    topology = await (await ctx.project()).getTopology(ctx.signal);
  } catch (err) {
    return { error: failure(`cannot read the project's nodes, ${NOTHING_SENT}: ${errorMessage(err).split('\n')[0]}`) };
  }
  const names = topology.nodes.map((n) => n.name);
  const expanded = expandDevices(args.devices, names);
  if (!expanded.ok) return { error: failure(`${expanded.error}; ${NOTHING_SENT}`) };
  const { devices, expansion } = expanded.set;
  const pilotSet = args.pilot?.length ? expandDevices(args.pilot, devices) : undefined;
  if (pilotSet && !pilotSet.ok)
    return { error: failure(`pilot: ${pilotSet.error.replace('in the project', 'in the set')}; ${NOTHING_SENT}`) };
  const { facts, errors } = await factsOf(args, devices, ctx, topology);
  if (errors.length > 0) return { error: failure(`cannot read the facts the template uses, ${NOTHING_SENT}: ${errors.join('; ')}`) };
  const rendered = renderAll(args, facts);
  if (!rendered.ok) return { error: rendered.outcome };
  const refused = judgeLines(rendered.devices, ctx.settings.forbidden_commands);
  if (refused !== undefined) return { error: failure(`blocked, ${NOTHING_SENT}: ${refused}`) };
  return {
    set: {
      devices: rendered.devices.filter((d) => d.commands.length > 0),
      skipped: rendered.devices.filter((d) => d.commands.length === 0).map((d) => d.device_name),
      expansion,
      pilot: pilotSet?.ok ? pilotSet.set.devices : [],
    },
  };
}

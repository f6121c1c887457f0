/**
 * manage_gns3_packet_filter: read and change a link's packet filters (loss,
 * delay, corruption, frequency drop, BPF). Values are checked against the
 * link's available_filters first: the API stores out-of-range values and only
 * fails (409) once a node on the link runs.
 */
import { z } from 'zod';
import type { AvailableFilter } from '../../gns3/raw.js';
import { defineTool, failure } from '../types.js';
import { guarded, projectOf } from './common.js';
import { TOOL_TARGETS } from '../targets.js';
import { faultArgSchema } from '../../faults/spec.js';
import { admitFault, faultNote, ledgerOf, recordFault, type AdmittedFault } from '../fault-ledger.js';
import { withVerification } from '../changeset/verified-change.js';
import { readable } from '../changeset/verify.js';
import type { ToolContext, ToolOutcome } from '../types.js';

const filterValue = z.union([z.array(z.union([z.number(), z.string()])), z.number(), z.string()]);

export const managePacketFilterSchema = z.object({
  link: z
    .string()
    .min(1)
    .describe('link id, or "NodeA:port NodeB:port", or "NodeA NodeB" when only one link joins them')
    .meta({ brief: 'id, "A:e0 B:e0" or "A B"' }),
  action: z.enum(['get_available', 'get', 'set', 'clear']),
  filters: z
    .record(z.string(), filterValue)
    .optional()
    .describe(
      'set: e.g. {"packet_loss":[30]}, {"delay":[100,10]}, {"bpf":["icmp","udp"]} — merged into the current filters. clear: types to remove (all when absent)',
    )
    .meta({ brief: '{"delay":[100,10]}…' }),
  fault: faultArgSchema.optional(),
});

/** Checks one filter against its definition; returns the value list to send or an error text. */
export function validateFilter(type: string, value: unknown, available: AvailableFilter[]): { values: unknown[] } | { error: string } {
  const def = available.find((f) => f.type === type);
  if (!def) return { error: `unknown filter "${type}" (available: ${available.map((f) => f.type).join(', ')})` };
  const list = Array.isArray(value) ? value : [value];
  if (def.parameters.length === 1 && def.parameters[0]!.type === 'text') {
    // BPF: one string, one expression per line (a list of strings would be rejected by uBridge).
    const text = list
      .map((v) => String(v).trim())
      .filter((v) => v !== '')
      .join('\n');
    if (text === '') return { error: `${type} needs at least one expression` };
    return { values: [text] };
  }
  if (list.length === 0 || list.length > def.parameters.length) {
    return {
      error: `${type} takes ${def.parameters.length === 1 ? '1 value' : `1 to ${def.parameters.length} values`} (${def.parameters.map((p) => p.name).join(', ')})`,
    };
  }
  const values: number[] = [];
  for (let i = 0; i < list.length; i++) {
    const p = def.parameters[i]!;
    const n = typeof list[i] === 'number' ? (list[i] as number) : Number(String(list[i]).trim());
    if (!Number.isInteger(n)) return { error: `${type} ${p.name} must be an integer, got ${JSON.stringify(list[i])}` };
    if ((p.minimum !== undefined && n < p.minimum) || (p.maximum !== undefined && n > p.maximum)) {
      return { error: `${type} ${p.name} must be between ${p.minimum} and ${p.maximum}${p.unit ? ` ${p.unit}` : ''}, got ${n}` };
    }
    values.push(n);
  }
  return { values };
}

/** The ends of a link labelled `R1:e0 <-> R2:e1` that have state readers (routers, not PCs). */
async function routerEnds(label: string, ctx: ToolContext): Promise<string[]> {
  const topology = await (await ctx.project()).getTopology(ctx.signal);
  return label
    .split(' <-> ')
    .map((end) => end.replace(/:[^:]*$/, ''))
    .filter((name) => topology.nodes.some((n) => n.name === name) && readable(topology, name));
}

/** `packet_loss 30, delay 100/10` or `no filters`, for the display line. */
function filterLine(filters: Record<string, unknown>): string {
  const parts = Object.entries(filters).map(([k, v]) => `${k} ${Array.isArray(v) ? v.join('/') : String(v)}`);
  return parts.length ? parts.join(', ') : 'no filters';
}

export const manageGns3PacketFilter = defineTool({
  name: 'manage_gns3_packet_filter',
  description:
    'Inspect or change packet filters on a GNS3 link: get_available (filter types and ranges), get, set (merged into the current filters), clear (all, or the listed types). ' +
    'In inject mode `set` applies a fault and needs `fault` (recorded in the fault ledger).',
  brief: 'Read or change link filters.',
  risk: 'config',
  schema: managePacketFilterSchema,
  argModes: { fault: ['troubleshooting_injection'] },
  targets: TOOL_TARGETS.manage_gns3_packet_filter,
  run: (args, ctx) =>
    guarded(async () => {
      const project = await projectOf(ctx);
      const { link, filters: available } = await project.availableFilters(args.link, ctx.signal);
      const label = await project.linkLabel(link, ctx.signal);
      const base = { link: label, link_id: link.link_id };
      if (args.action === 'get_available') {
        return {
          status: 'success',
          data: {
            ...base,
            available: available.map((f) => ({
              type: f.type,
              description: f.description,
              parameters: f.parameters.map((p) => ({
                name: p.name,
                type: p.type,
                ...(p.minimum !== undefined ? { min: p.minimum, max: p.maximum } : {}),
                ...(p.unit ? { unit: p.unit } : {}),
              })),
            })),
          },
        };
      }
      const current = link.filters ?? {};
      if (args.action === 'get')
        return { status: 'success', data: { ...base, filters: current }, display: `${label}: ${filterLine(current)}` };

      let next: Record<string, unknown[]>;
      const notes: string[] = [];
      let admitted: AdmittedFault | undefined;
      if (args.action === 'clear') {
        const types = Object.keys(args.filters ?? {});
        next = types.length ? Object.fromEntries(Object.entries(current).filter(([k]) => !types.includes(k))) : {};
      } else {
        const given = Object.entries(args.filters ?? {});
        if (given.length === 0) return failure('set needs filters, e.g. {"packet_loss":[30]}', base);
        const errors: string[] = [];
        next = { ...current };
        for (const [type, value] of given) {
          const v = validateFilter(type, value, available);
          if ('error' in v) errors.push(v.error);
          else {
            next[type] = v.values;
            if (v.values[0] === 0) notes.push(`${type} with a first value of 0 disables that filter`);
          }
        }
        if (errors.length) return failure(errors.join('; '), { ...base, filters: current });
        const ledger = ledgerOf(ctx);
        if (ledger) {
          const ends = label.split(' <-> ');
          const admit = await admitFault(ctx, ledger, args.fault, {
            kind: 'link',
            label,
            linkId: link.link_id,
            ends: [ends[0] ?? label, ends[1] ?? label],
            filters: Object.fromEntries(given.map(([t]) => [t, next[t]])),
          });
          if (!admit.ok) return admit.outcome;
          admitted = admit.admitted;
        }
      }
      const apply = async (): Promise<ToolOutcome> => {
        // PUT replaces the whole set, hence the merge above.
        const stored = await project.putFilters(link.link_id, next, ctx.signal);
        const result = stored?.filters ?? {};
        for (const k of Object.keys(next)) if (!(k in result) && next[k]?.[0] !== 0) notes.push(`the server dropped ${k}`);
        const recorded = admitted
          ? recordFault(admitted, Object.fromEntries(Object.keys(args.filters ?? {}).map((t) => [t, result[t] ?? next[t]])), ctx.callId)
          : undefined;
        return {
          status: 'success',
          data: { ...base, filters: result, ...(notes.length ? { notes } : {}), ...(recorded ? { fault: faultNote(recorded) } : {}) },
          display: `${label}: ${filterLine(result)}${recorded ? ` · fault #${recorded.id} recorded` : ''}`,
        };
      };
      try {
        // a fault on a link between routers: what it broke is verified and reported (inject mode: reported only)
        const routers = admitted ? await routerEnds(label, ctx) : [];
        return routers.length
          ? await withVerification(
              routers.map((device_name) => ({ device_name, commands: [] })),
              ctx,
              apply,
              { reportOnly: true },
            )
          : await apply();
      } finally {
        admitted?.release();
      }
    }),
});

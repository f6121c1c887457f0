/** get_gns3_templates: what can be added to the project. */
import { z } from 'zod';
import { defineTool } from '../types.js';
import { guarded, projectOf } from './common.js';
import type { RawCompute } from '../../gns3/raw.js';
import { count } from '../../core/plural.js';

/** Builtin types that are plumbing rather than devices; hidden only on request. */
const INFRASTRUCTURE = new Set(['cloud', 'nat', 'ethernet_hub', 'frame_relay_switch', 'atm_switch']);

export const getGns3Templates = defineTool({
  name: 'get_gns3_templates',
  description:
    "List the GNS3 templates nodes can be created from (name, template_id, template_type, category, compute_id) and the computes they can run on (compute_id, name, host, connected). Use a template's name or id, and optionally a compute, with create_gns3_node.",
  brief: 'Templates and computes.',
  risk: 'read',
  group: 'knowledge',
  schema: z.object({
    hide_infrastructure: z.boolean().optional().describe('hide cloud, NAT, hub, Frame Relay and ATM switch templates'),
    category: z.string().optional().describe('only this category: router, switch, guest, firewall …'),
  }),
  run: (args, ctx) =>
    guarded(async () => {
      const project = await projectOf(ctx);
      const [all, computes] = await Promise.all([
        project.client.listTemplates(ctx.signal),
        project.client.listComputes(ctx.signal).catch((): RawCompute[] => []),
      ]);
      const templates = all
        .filter((t) => !(args.hide_infrastructure && INFRASTRUCTURE.has(t.template_type)))
        .filter((t) => !args.category || (t.category ?? '').toLowerCase() === args.category.toLowerCase())
        .map((t) => ({
          name: t.name,
          template_id: t.template_id,
          template_type: t.template_type,
          category: t.category ?? null,
          ...(t.compute_id ? { compute_id: t.compute_id } : {}),
        }))
        .sort((a, b) => a.name.localeCompare(b.name));
      const listed = computes.map((c) => ({ compute_id: c.compute_id, name: c.name, host: c.host, connected: c.connected !== false }));
      return {
        status: 'success',
        data: { count: templates.length, templates, computes: listed },
        display: `${count(templates.length, 'template')}${listed.length > 1 ? `, ${count(listed.length, 'compute')}` : ''}`,
      };
    }),
});

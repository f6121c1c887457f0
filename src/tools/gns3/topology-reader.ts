/**
 * gns3_topology_reader: nodes, consoles, ports with link usage, links with filters — the
 * whole lab, or (`nodes`) only the named/globbed nodes and their links, which is how the
 * model reads a lab too large for the prompt (above topology_inline_max).
 */
import { z } from 'zod';
import { renderTopologyText } from '../../gns3/render.js';
import type { Topology } from '../../gns3/types.js';
import { defineTool, failure } from '../types.js';
import { guarded, projectOf } from './common.js';
import { selectNodes } from './node-filter.js';
import { count } from '../../core/plural.js';

export function topologyJson(t: Topology): Record<string, unknown> {
  const peer = (nodeId: string, adapter: number, port: number, linkId: string | null) => {
    if (!linkId) return null;
    const link = t.links.find((l) => l.link_id === linkId);
    const other = link?.ends.find((e) => !(e.node_id === nodeId && e.adapter_number === adapter && e.port_number === port));
    return other ? `${other.node_name}:${other.port_name}` : 'linked';
  };
  return {
    project: t.project_name,
    project_id: t.project_id,
    nodes: t.nodes.map((n) => ({
      name: n.name,
      type: n.node_type,
      ...(n.template_name ? { template: n.template_name } : {}),
      status: n.status,
      console:
        n.console !== null && n.console_type && n.console_type !== 'none' ? `${n.console_type} ${n.console_host}:${n.console}` : null,
      ...(n.tags.length ? { tags: n.tags } : {}),
      // port -> "Peer:port" (null when free): the model addresses everything by name
      ports: Object.fromEntries(n.ports.map((p) => [p.short_name, peer(n.node_id, p.adapter_number, p.port_number, p.link_id)])),
    })),
    links: t.links.map((l) => ({
      link_id: l.link_id,
      a: l.ends[0] ? `${l.ends[0].node_name}:${l.ends[0].port_name}` : null,
      b: l.ends[1] ? `${l.ends[1].node_name}:${l.ends[1].port_name}` : null,
      filters: l.filters,
      ...(l.suspend ? { suspended: true } : {}),
      ...(l.capturing ? { capturing: true } : {}),
    })),
  };
}

export const gns3TopologyReader = defineTool({
  name: 'gns3_topology_reader',
  description:
    'Read the current GNS3 project topology: nodes (type, status, console host:port), their ports and what each connects to, links with their packet filters.',
  brief: 'Topology with ports and filters.',
  risk: 'read',
  group: 'knowledge',
  schema: z.object({
    format: z.enum(['json', 'text']).optional().describe('json (default) or compact text'),
    nodes: z
      .array(z.string().min(1).max(200))
      .min(1)
      .max(256)
      .optional()
      .describe('Only these nodes and their links: names or globs (R*, R[1-4], PC?); default the whole lab')
      .meta({ brief: 'only these+their links: names/globs R*, R[1-4]' }),
  }),
  run: (args, ctx) =>
    guarded(async () => {
      const project = await projectOf(ctx);
      const whole = await project.getTopology(ctx.signal);
      if (!args.nodes) {
        const display = `${whole.project_name}: ${count(whole.nodes.length, 'node')}, ${count(whole.links.length, 'link')}`;
        if (args.format === 'text') return { status: 'success', data: { topology: renderTopologyText(whole) }, display };
        return { status: 'success', data: topologyJson(whole), display };
      }
      const picked = selectNodes(whole, args.nodes);
      if (!picked.ok) return failure(picked.error, {}, { code: 'invalid_arguments' });
      const { topology: t, label } = picked.selection;
      const display = `${t.project_name}: ${label}, ${count(t.links.length, 'link')}`;
      if (args.format === 'text') return { status: 'success', data: { topology: renderTopologyText(t, { selection: label }) }, display };
      return { status: 'success', data: { ...topologyJson(t), selected: { nodes: args.nodes, of_nodes: whole.nodes.length } }, display };
    }),
});

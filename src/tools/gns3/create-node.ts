/** create_gns3_node: nodes from templates, placed clear of existing ones when x/y are absent. */
import { z } from 'zod';
import { defineTool } from '../types.js';
import { guarded, projectOf, runItems, summary } from './common.js';

const nodeSpec = z.object({
  template: z.string().min(1).describe('template name (case-insensitive) or template_id'),
  name: z.string().min(1).optional().describe('node name; the server may de-duplicate it'),
  x: z.number().int().optional(),
  y: z.number().int().optional(),
});

export const createGns3Node = defineTool({
  name: 'create_gns3_node',
  description:
    'Create nodes in the current GNS3 project from templates. Omit x/y for automatic non-overlapping placement. Reports the name the server actually gave each node.',
  risk: 'lab',
  schema: z.object({ nodes: z.array(nodeSpec).min(1).max(50) }),
  run: (args, ctx) =>
    guarded(async () => {
      const project = await projectOf(ctx);
      const needPlace = args.nodes.filter((n) => n.x === undefined || n.y === undefined).length;
      const spots = needPlace ? await project.placements(needPlace, ctx.signal) : [];
      let s = 0;
      const placed = args.nodes.map((n) => (n.x === undefined || n.y === undefined ? { ...n, ...spots[s++]! } : n)) as {
        template: string;
        name?: string;
        x: number;
        y: number;
      }[];
      // Sequential: the server's name allocation depends on the nodes created before.
      const results = await runItems(
        placed,
        (n) => project.createNode(n, ctx.signal) as unknown as Promise<Record<string, unknown>>,
        (n) => ({ template: n.template, ...(n.name ? { name: n.name } : {}) }),
        1,
      );
      return summary(results);
    }),
});

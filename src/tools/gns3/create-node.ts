/** create_gns3_node: nodes from templates, placed clear of existing ones when x/y are absent. */
import { z } from 'zod';
import { bulkTool, listArgs } from './bulk.js';
import { TOOL_TARGETS } from '../targets.js';

const nodeSpec = z.object({
  template: z.string().min(1).describe('template name (case-insensitive) or template_id').meta({ brief: 'name or id' }),
  name: z.string().min(1).optional().describe('node name; the server may de-duplicate it'),
  x: z.number().int().optional(),
  y: z.number().int().optional(),
  compute: z
    .string()
    .min(1)
    .optional()
    .describe("compute (id or name, see get_gns3_templates) to run it on; default: the template's compute, else the only connected one"),
});

interface PlacedNode {
  template: string;
  name?: string;
  compute?: string;
  x: number;
  y: number;
}

export const createGns3Node = bulkTool({
  name: 'create_gns3_node',
  targets: TOOL_TARGETS.create_gns3_node,
  description:
    'Create nodes in the current GNS3 project from templates. Omit x/y for automatic non-overlapping placement. Reports the name the server actually gave each node.',
  brief: 'Create nodes; omit x/y to auto-place.',
  risk: 'lab',
  ...listArgs('nodes', nodeSpec, 50),
  items: async (args, project, ctx): Promise<PlacedNode[]> => {
    const needPlace = args.nodes.filter((n) => n.x === undefined || n.y === undefined).length;
    const spots = needPlace ? await project.placements(needPlace, ctx.signal) : [];
    let s = 0;
    // A node missing x or y takes a whole free spot (both coordinates).
    return args.nodes.map((n) => (n.x !== undefined && n.y !== undefined ? { ...n, x: n.x, y: n.y } : { ...n, ...spots[s++]! }));
  },
  run: (n, project, ctx) => project.createNode(n, ctx.signal),
  describe: (n) => ({ template: n.template, ...(n.name ? { name: n.name } : {}), ...(n.compute ? { compute: n.compute } : {}) }),
  // Sequential: the server's name allocation depends on the nodes created before.
  concurrency: 1,
});

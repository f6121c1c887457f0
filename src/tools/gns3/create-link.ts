/** create_gns3_link: connect node ports addressed by name (e0, Ethernet0, eth0, Gi0/0) or adapter/port. */
import { z } from 'zod';
import { defineTool } from '../types.js';
import { guarded, projectOf, runItems, summary } from './common.js';

const linkSpec = z.object({
  node_a: z.string().min(1),
  port_a: z.string().min(1).describe('e0, Ethernet0, eth0, Gi0/0 … or adapter/port like 0/0'),
  node_b: z.string().min(1),
  port_b: z.string().min(1),
});

export const createGns3Link = defineTool({
  name: 'create_gns3_link',
  description:
    'Create links between node ports in the current GNS3 project. Ports by name (e0, Ethernet0, eth0, Gi0/0) or adapter/port. An unknown or used port is reported with the node\'s free ports.',
  risk: 'lab',
  schema: z.object({ links: z.array(linkSpec).min(1).max(100) }),
  run: (args, ctx) =>
    guarded(async () => {
      const project = await projectOf(ctx);
      // Sequential: each link changes which ports are free for the next.
      const results = await runItems(
        args.links,
        async (l) => ({ ...(await project.createLink(l, ctx.signal)) }),
        (l) => ({ a: `${l.node_a}:${l.port_a}`, b: `${l.node_b}:${l.port_b}` }),
        1,
      );
      return summary(results);
    }),
});

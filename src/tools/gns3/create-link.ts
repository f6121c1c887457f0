/** create_gns3_link: connect node ports addressed by name (e0, Ethernet0, eth0, Gi0/0) or adapter/port. */
import { z } from 'zod';
import { bulkTool, listArgs } from './bulk.js';
import { TOOL_TARGETS } from '../targets.js';

const linkSpec = z.object({
  node_a: z.string().min(1),
  port_a: z.string().min(1).describe('e0, Ethernet0, eth0, Gi0/0 … or adapter/port like 0/0').meta({ brief: 'e0, Gi0/0 or 0/0' }),
  node_b: z.string().min(1),
  port_b: z.string().min(1),
});

export const createGns3Link = bulkTool({
  name: 'create_gns3_link',
  targets: TOOL_TARGETS.create_gns3_link,
  description:
    "Create links between node ports in the current GNS3 project. Ports by name (e0, Ethernet0, eth0, Gi0/0) or adapter/port. An unknown or used port is reported with the node's free ports.",
  brief: 'Link node ports.',
  risk: 'lab',
  ...listArgs('links', linkSpec, 100),
  run: (l, project, ctx) => project.createLink(l, ctx.signal),
  describe: (l) => ({ a: `${l.node_a}:${l.port_a}`, b: `${l.node_b}:${l.port_b}` }),
  // Sequential: each link changes which ports are free for the next.
  concurrency: 1,
});

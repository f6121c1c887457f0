/** update_gns3_node_name: rename nodes and verify what the server stored. */
import { z } from 'zod';
import { Gns3ApiError } from '../../gns3/errors.js';
import { bulkTool, listArgs } from './bulk.js';
import { TOOL_TARGETS } from '../targets.js';

export const updateGns3NodeName = bulkTool({
  name: 'update_gns3_node_name',
  targets: TOOL_TARGETS.update_gns3_node_name,
  description:
    'Rename nodes in the current GNS3 project; reports the name the server stored (it de-duplicates names and removes spaces). GNS3 3.x refuses to rename a running node.',
  brief: 'Rename nodes (3.x: stopped only).',
  risk: 'lab',
  ...listArgs('nodes', z.object({ node: z.string().min(1).describe('current name or id'), new_name: z.string().min(1) }), 100),
  run: async (n, project, ctx) => {
    try {
      return await project.renameNode(n.node, n.new_name, ctx.signal);
    } catch (err) {
      if (err instanceof Gns3ApiError && err.status === 409) {
        throw new Error(`${err.serverMessage} — stop the node first, then rename it`);
      }
      throw err;
    }
  },
  describe: (n) => ({ node: n.node, new_name: n.new_name }),
  concurrency: 1,
});

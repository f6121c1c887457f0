/** start/stop/suspend_gns3_node: bulk power actions that wait (by polling) for the final status. */
import { z } from 'zod';
import type { NodeAction } from '../../gns3/project.js';
import { defineTool, type ToolRisk } from '../types.js';
import { guarded, projectOf, runItems, summary } from './common.js';

const schema = z.object({
  nodes: z.array(z.string().min(1)).min(1).max(100).describe('node names (case-insensitive) or ids'),
  wait_seconds: z.number().int().min(1).max(600).optional().describe('how long to wait for each node to reach the status (default 60)'),
});

function powerTool<N extends 'start_gns3_node' | 'stop_gns3_node' | 'suspend_gns3_node'>(
  name: N,
  action: NodeAction,
  risk: ToolRisk,
  description: string,
) {
  return defineTool({
    name,
    description,
    risk,
    schema,
    run: (args, ctx) =>
      guarded(async () => {
        const project = await projectOf(ctx);
        const deadlineMs = (args.wait_seconds ?? 60) * 1000;
        const results = await runItems(
          [...new Set(args.nodes)],
          async (node) => ({ ...(await project.nodeAction(node, action, { deadlineMs, signal: ctx.signal })) }),
          (node) => ({ node }),
        );
        // a node that did not reach the status by the deadline is a failure, not "ok" with a note
        for (const r of results) if (typeof r.note === 'string' && r.note.startsWith('still ')) Object.assign(r, { status: 'error', error: r.note });
        return summary(results);
      }),
  });
}

export const startGns3Node = powerTool(
  'start_gns3_node',
  'start',
  'lab',
  'Start nodes in the current GNS3 project and wait until each reports "started". Returns each node\'s final status and console.',
);
export const stopGns3Node = powerTool(
  'stop_gns3_node',
  'stop',
  'config',
  'Stop nodes in the current GNS3 project and wait until each reports "stopped".',
);
export const suspendGns3Node = powerTool(
  'suspend_gns3_node',
  'suspend',
  'config',
  'Suspend nodes in the current GNS3 project and wait until each reports "suspended" (VPCS and switches cannot be suspended).',
);

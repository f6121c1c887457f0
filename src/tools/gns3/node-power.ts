/** start/stop/suspend_gns3_node: bulk power actions that wait (by polling) for the final status. */
import { z } from 'zod';
import type { NodeAction } from '../../gns3/project.js';
import type { ChangeRisk } from '../types.js';
import { bulkTool } from './bulk.js';
import { TOOL_TARGETS } from '../targets.js';

const schema = z.object({
  nodes: z.array(z.string().min(1)).min(1).max(100).describe('node names (case-insensitive) or ids'),
  wait_seconds: z.number().int().min(1).max(600).optional().describe('how long to wait for each node to reach the status (default 60)'),
});

function powerTool<N extends 'start_gns3_node' | 'stop_gns3_node' | 'suspend_gns3_node'>(
  name: N,
  action: NodeAction,
  risk: ChangeRisk,
  description: string,
) {
  return bulkTool({
    name,
    description,
    brief: `${action[0]!.toUpperCase()}${action.slice(1)} nodes and wait.`,
    risk,
    noun: 'nodes',
    schema,
    targets: TOOL_TARGETS[name],
    items: (args) => [...new Set(args.nodes)].map((node) => ({ node, deadlineMs: (args.wait_seconds ?? 60) * 1000 })),
    run: ({ node, deadlineMs }, project, ctx) => project.nodeAction(node, action, { deadlineMs, signal: ctx.signal }),
    // a node that did not reach the status by the deadline is a failure, not "ok" with a note
    failure: (r) => (typeof r.note === 'string' && r.note.startsWith('still ') ? r.note : undefined),
    describe: ({ node }) => ({ node }),
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

/** get_gns3_node_console: console host, port and type of nodes, to tell a user how to reach one. */
import { z } from 'zod';
import { bulkTool, listArgs } from './bulk.js';

export const getGns3NodeConsole = bulkTool({
  name: 'get_gns3_node_console',
  description:
    'Console host, port and type (telnet, vnc, spice, none) of nodes in the current GNS3 project, e.g. to tell the user how to open a console.',
  brief: 'Console host, port, type.',
  risk: 'read',
  ...listArgs('nodes', z.string().min(1).describe('node name or id'), 100),
  run: async (ref, project, ctx) => {
    const n = await project.resolveNode(ref, ctx.signal);
    return { node: n.name, console_type: n.console_type, host: n.console_host, port: n.console };
  },
  describe: (ref) => ({ node: ref }),
});

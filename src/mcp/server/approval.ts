/**
 * --approve ask over MCP: the client's user decides through elicitation (a form
 * with one yes/no field). A client that cannot elicit gets a clear refusal.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Approver } from '../../core/api.js';

export const NO_ELICITATION =
  'this MCP client does not support elicitation, so nobody can approve the call here; restart `gns3-copilot mcp` with --approve all to allow config-changing tools';

export function elicitationApprover(server: Server): Approver {
  return async (req, signal) => {
    if (!server.getClientCapabilities()?.elicitation) throw new Error(NO_ELICITATION);
    const res = await server.elicitInput(
      {
        message: `gns3-copilot wants to run ${req.name}, which changes the lab:\n${JSON.stringify(req.args, null, 2)}\nAllow it?`,
        requestedSchema: {
          type: 'object',
          properties: { approve: { type: 'boolean', title: 'Approve', description: `run ${req.name} once` } },
          required: ['approve'],
        },
      },
      { signal },
    );
    if (res.action === 'accept' && res.content?.approve === true) return { kind: 'allow_once' };
    return { kind: 'deny' };
  };
}

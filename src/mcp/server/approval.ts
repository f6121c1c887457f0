/**
 * --approve ask over MCP: the client's user decides through elicitation (a form
 * with one yes/no field). A client that cannot elicit gets a clear refusal.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { ApprovalRequest, Approver } from '../../core/api.js';
import { targetsOf } from '../../tools/targets.js';
import { packetFilterSummary } from '../../tools/filter-summary.js';
import { previewText } from '../../checkpoints/preview-text.js';
import { sanitizeText } from '../../security/sanitize.js';

export const NO_ELICITATION =
  'this MCP client does not support elicitation, so nobody can approve the call here; restart `gns3-copilot mcp` with --approve all to allow config-changing tools';

/** Lines of a call's arguments shown when it has no devices to list (a topology tool): a client shows the message in one dialog. */
const MAX_ARG_LINES = 60;

/**
 * What the client's user reads: per device the commands and the diff they would make to the
 * configuration read just now (or why there is none); a call without devices shows its arguments.
 * Plain text, sanitised: clients such as Claude Code show it in a terminal.
 */
export function approvalMessage(req: Pick<ApprovalRequest, 'name' | 'args' | 'preview'>): string {
  const devices = targetsOf(req.name, req.args)?.devices ?? [];
  let body: string;
  if (devices.length > 0 || req.preview?.length) body = previewText(devices, req.preview);
  else {
    const lines = JSON.stringify(req.args, null, 2).split('\n');
    const left = lines.length - MAX_ARG_LINES;
    body = left > 0 ? [...lines.slice(0, MAX_ARG_LINES), `… ${left} more lines not shown`].join('\n') : lines.join('\n');
    // a link filter says what it does in words first (`PC1:e0 ↔ SW1:e1: drop icmp`), then its arguments
    const summary = req.name === 'manage_gns3_packet_filter' ? packetFilterSummary(req.args) : undefined;
    if (summary) body = `${summary}\n${body}`;
  }
  return sanitizeText(`gns3-copilot wants to run ${req.name}, which changes the lab:\n${body}\nAllow it?`);
}

export function elicitationApprover(server: Server): Approver {
  return async (req, signal) => {
    if (!server.getClientCapabilities()?.elicitation) throw new Error(NO_ELICITATION);
    const res = await server.elicitInput(
      {
        message: approvalMessage(req),
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

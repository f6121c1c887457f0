/**
 * The MCP server's words for a tool call refused for want of approval (the gate gives
 * the reason as data, src/tools/gate.ts): the policy is the server's, so the way to
 * allow a call is to restart the server with another --approve.
 */
import { APPROVAL_WHAT, type ApprovalRefusal } from '../../tools/gate.js';

const RESTART = 'restart `gns3-copilot mcp` with';

export function mcpRefusalText(r: ApprovalRefusal): string {
  const what = `${r.tool} ${APPROVAL_WHAT[r.why]}`;
  if (r.cause === 'no_asker')
    return `${what} and needs approval, but this MCP client does not support elicitation, so nobody can approve it here: ${RESTART} --approve ${r.allowWith}`;
  return `${what} and this server runs with --approve ${r.policy}: ${RESTART} --approve ${r.allowWith} to allow it, or --approve ask for a client that supports elicitation`;
}

/**
 * The composition root of an agent session: the core (src/agent/session.ts) plus the tools
 * that live above it, the user's mcp_servers (src/mcp/client/). The core imports nothing
 * from mcp/; the TUI and the one-shot run open their sessions here.
 */
import type { CopilotSession, CreateAgentSessionOptions, ToolAttacher } from '../agent/session.js';
import type { SessionOpener } from '../ui/services.js';

/** Loads the MCP client only when a session has mcp_servers to connect. */
const attachMcpTools: ToolAttacher = async (target) => {
  const names = Object.keys(target.settings.mcp_servers);
  if (names.length === 0) return undefined;
  for (const name of names) target.connecting.add(name); // before the import, so a request sent at once already waits visibly
  const { attachMcpServers } = await import('../mcp/client/attach.js');
  return attachMcpServers(target.registry, target.settings.mcp_servers, target.log, target.services, target.connecting);
};

export async function openAgentSession(opts: CreateAgentSessionOptions): Promise<CopilotSession> {
  const { createAgentSession } = await import('../agent/session.js');
  return createAgentSession({ attachTools: attachMcpTools, ...opts });
}

/** Loads the agent core's modules (LangGraph, LangChain, SQLite, the tools) without opening anything: a warm-up while the TUI waits for the controller. */
export async function loadAgentCore(): Promise<void> {
  await Promise.all([import('../agent/session.js'), import('../tools/index.js')]);
}

/** What the TUI opens its sessions with (src/ui/services.ts): it does not import this layer. */
export const sessionOpener: SessionOpener = { open: openAgentSession, warmUp: loadAgentCore };

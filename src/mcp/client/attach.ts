/**
 * The `mcp_servers` of a session: connects them all in parallel, adds their
 * tools to the registry, and removes a server's tools when it dies (a notice in
 * the log and in that call's result; the session goes on). Registered in the
 * session's services so session.close() shuts the servers down.
 */
import type { Logger } from '../../log.js';
import { errorMessage } from '../../errors.js';
import type { ToolRegistry } from '../../tools/registry.js';
import { mcpServerSchema, type McpServerConfig } from '../../config/mcp-servers.js';
import { expandConfig, TOOL_SEPARATOR } from './config.js';
import { McpConnection } from './connection.js';

export const MCP_SERVICE_KEY = 'mcp.clients';

export interface McpServerStatus {
  name: string;
  ok: boolean;
  tools: string[];
  detail: string;
}

export class McpClients {
  readonly connections: McpConnection[] = [];
  readonly status: McpServerStatus[] = [];
  /** notices for the user (failed to start, died) */
  readonly notices: string[] = [];

  async close(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.close()));
  }
}

/** Connects every configured server; failures become status entries and notices, never exceptions. */
export async function connectMcpServers(
  servers: Record<string, unknown>,
  log: Logger,
  onDeath: (c: McpConnection, why: string) => void = () => {},
  out = new McpClients(),
  onConnected: (c: McpConnection) => void = () => {},
  connecting?: Set<string>,
): Promise<McpClients> {
  for (const name of Object.keys(servers)) connecting?.add(name);
  await Promise.all(
    Object.entries(servers).map(async ([name, raw]) => {
      try {
        const cfg: McpServerConfig = expandConfig(mcpServerSchema.parse(raw));
        const conn = await McpConnection.connect(name, cfg, log, onDeath);
        out.connections.push(conn);
        onConnected(conn);
        out.status.push({
          name,
          ok: true,
          tools: conn.tools.map((t) => t.name),
          detail: `MCP server ${name}: connected, ${conn.tools.length} tool${conn.tools.length === 1 ? '' : 's'}`,
        });
      } catch (err) {
        const why = errorMessage(err).split('\n')[0] ?? 'failed';
        const notice = `MCP server ${name} did not start (${why}); going on without its tools`;
        out.status.push({ name, ok: false, tools: [], detail: `MCP server ${name}: ${why}` });
        out.notices.push(notice);
        log.warn(notice);
      } finally {
        connecting?.delete(name);
      }
    }),
  );
  out.status.sort((a, b) => a.name.localeCompare(b.name));
  return out;
}

/**
 * Also registers the clients in `services` (when given), whose close() the session calls.
 * Each server's tools join the registry as soon as that server is up; `connecting` holds
 * the names of those still starting.
 */
export async function attachMcpServers(
  registry: ToolRegistry,
  servers: Record<string, unknown>,
  log: Logger,
  services?: Map<string, unknown>,
  connecting?: Set<string>,
): Promise<McpClients> {
  const clients = new McpClients();
  services?.set(MCP_SERVICE_KEY, clients);
  await connectMcpServers(
    servers,
    log,
    (conn, why) => {
      const removed = registry.removeExternal(`${conn.name}${TOOL_SEPARATOR}`);
      const notice = `MCP server ${conn.name} stopped (${why}); removed its tools (${removed.join(', ') || 'none'}), the session goes on`;
      clients.notices.push(notice);
      log.warn(notice);
    },
    clients,
    (conn) => registry.addExternal(conn.tools),
    connecting,
  );
  return clients;
}

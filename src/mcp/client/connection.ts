/**
 * One of the user's MCP servers: connect (stdio child or streamable HTTP) with
 * the SDK client, list its tools and turn them into ToolDefs named
 * `server__tool` that the agent's registry dispatches like its own. A server
 * whose connection closes is marked dead and reported through onDeath.
 */
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../log.js';
import { errorMessage } from '../../errors.js';
import { failure, type OutcomeStatus, type ToolDef, type ToolOutcome } from '../../tools/types.js';
import type { McpServerConfig } from '../../config/mcp-servers.js';
import { prefixedName, toolIncluded } from './config.js';
import pkg from '../../../package.json' with { type: 'json' };

/** Any JSON object: the server validates arguments against its own inputSchema. */
const anyObject = z.record(z.string(), z.unknown());
/** a tool of a server that stopped is no longer among the session's tools (core/events.ts ToolErrorCode) */
const NOT_AVAILABLE = { code: 'not_available' } as const;

/** OpenAI function names: [A-Za-z0-9_-]{1,64}. */
export function safeToolName(server: string, tool: string): string {
  return prefixedName(server, tool.replace(/[^A-Za-z0-9_-]/g, '_')).slice(0, 64);
}

const isOutcomeStatus = (s: unknown): s is OutcomeStatus => s === 'success' || s === 'partial' || s === 'error';

/**
 * An MCP result as a ToolOutcome: `isError` → error (the structured `error`, else
 * the text parts, is the message); structured content → its data, with its own
 * `status` when it speaks our vocabulary (a gns3-copilot server's batch stays
 * `partial`); else the text parts.
 */
export function outcomeOfCallResult(res: CallToolResult): ToolOutcome {
  const texts = (res.content ?? []).map((c) => (c.type === 'text' ? c.text : `[${c.type} content]`)).join('\n');
  if (res.isError) {
    const { status: _status, error, ...rest } = res.structuredContent ?? {};
    return typeof error === 'string' ? failure(error, rest) : failure(texts || 'the MCP tool reported an error');
  }
  if (res.structuredContent) {
    // any other server's structured content reaches the model exactly as it was sent
    const { status, ...data } = res.structuredContent;
    if (isOutcomeStatus(status)) return { status, data };
    return { status: 'success', data: JSON.stringify(res.structuredContent) };
  }
  return { status: 'success', data: texts };
}

export class McpConnection {
  tools: ToolDef[] = [];
  dead: string | undefined;
  private closing = false;

  private constructor(
    readonly name: string,
    readonly cfg: McpServerConfig,
    private readonly client: Client,
  ) {}

  static async connect(
    name: string,
    cfg: McpServerConfig,
    log: Logger,
    onDeath: (c: McpConnection, why: string) => void,
  ): Promise<McpConnection> {
    const client = new Client({ name: 'gns3-copilot', version: pkg.version });
    const conn = new McpConnection(name, cfg, client);
    let stderrTail = '';
    let transport;
    if (cfg.command) {
      const { StdioClientTransport, getDefaultEnvironment } = await import('@modelcontextprotocol/sdk/client/stdio.js');
      const t = new StdioClientTransport({
        command: cfg.command,
        args: cfg.args,
        env: { ...getDefaultEnvironment(), ...cfg.env },
        ...(cfg.cwd ? { cwd: cfg.cwd } : {}),
        stderr: 'pipe',
      });
      t.stderr?.on('data', (d: Buffer) => {
        stderrTail = (stderrTail + d.toString()).slice(-2000);
        log.debug('mcp server stderr', { server: name, text: d.toString().slice(0, 500) });
      });
      transport = t;
    } else {
      const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
      transport = new StreamableHTTPClientTransport(new URL((cfg.httpUrl ?? cfg.url)!), { requestInit: { headers: cfg.headers } });
    }
    const lastLine = () => stderrTail.trim().split('\n').pop()?.slice(0, 200);
    try {
      await client.connect(transport, { timeout: cfg.timeout });
      const { tools } = await client.listTools(undefined, { timeout: cfg.timeout });
      conn.tools = tools.filter((t) => toolIncluded(cfg, t.name)).map((t) => conn.toolDef(t));
    } catch (err) {
      await client.close().catch(() => undefined);
      const tail = lastLine();
      throw new Error(`${errorMessage(err).split('\n')[0]}${tail ? ` (stderr: ${tail})` : ''}`);
    }
    client.onclose = () => {
      if (conn.closing || conn.dead) return;
      const tail = lastLine();
      conn.dead = `connection closed${tail ? `; last stderr: ${tail}` : ''}`;
      onDeath(conn, conn.dead);
    };
    return conn;
  }

  private toolDef(t: Tool): ToolDef {
    const trusted = this.cfg.trust || t.annotations?.readOnlyHint === true;
    const def: ToolDef<typeof anyObject> = {
      name: safeToolName(this.name, t.name) as ToolDef['name'],
      description: `[MCP server ${this.name}] ${t.description ?? t.title ?? t.name}`.slice(0, 1024),
      schema: anyObject,
      jsonSchema: t.inputSchema,
      risk: trusted ? 'read' : 'config',
      // what a server's tool touches is unknown: no checkpoint, and an allowance covers the whole tool
      targets: null,
      run: async (args, ctx) => {
        if (this.dead) return failure(`MCP server ${this.name} is not running (${this.dead}); its tools were removed`, {}, NOT_AVAILABLE);
        try {
          const res = await this.client.callTool({ name: t.name, arguments: args }, undefined, {
            signal: ctx.signal,
            timeout: this.cfg.timeout,
          });
          return outcomeOfCallResult(res as CallToolResult);
        } catch (err) {
          if (ctx.signal.aborted) throw err;
          if (this.dead)
            return failure(
              `MCP server ${this.name} stopped during the call (${this.dead}); its tools were removed, the session goes on without them`,
              {},
              NOT_AVAILABLE,
            );
          return failure(`MCP server ${this.name}: ${errorMessage(err).split('\n')[0]}`);
        }
      },
    };
    return def;
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.client.close().catch(() => undefined);
  }
}

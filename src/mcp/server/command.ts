/**
 * `gns3-copilot mcp`: serves the lab tools over stdio (default) or streamable
 * HTTP (`--http HOST:PORT`, loopback unless --listen; bearer token from
 * GNS3_COPILOT_MCP_TOKEN or the keychain, required off loopback).
 */
import type { Settings } from '../../config/schema.js';
import { createLogger, registerSecret, type Logger } from '../../log.js';
import { CopilotError, ExitCode, UsageError, errorMessage } from '../../errors.js';
import type { ApprovePolicy } from '../../tools/gate.js';
import { McpRuntime } from './runtime.js';
import type { ToolGateOptions } from './tools.js';

export interface McpCommandOptions {
  http?: string;
  listen?: boolean;
  env?: NodeJS.ProcessEnv;
  log?: Logger;
}

export const MCP_TOKEN_ENV = 'GNS3_COPILOT_MCP_TOKEN';

export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** `127.0.0.1:8765`, `[::1]:8765`, `:8765` or `8765` (loopback). */
export function parseListen(value: string): { host: string; port: number } {
  const m = /^(?:(\[[^\]]+\]|[^:]*):)?(\d{1,5})$/.exec(value.trim());
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) throw new UsageError(`--http: expected HOST:PORT, e.g. 127.0.0.1:8765 (got ${value})`);
  return { host: m[1] || '127.0.0.1', port };
}

export async function resolveMcpToken(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const fromEnv = env[MCP_TOKEN_ENV]?.trim();
  if (fromEnv) return fromEnv;
  const { openSecretStore } = await import('../../config/secrets.js');
  return openSecretStore({ env })
    .get('mcp_token')
    .catch(() => undefined);
}

/** One line for the client's log (Claude Code, Gemini CLI show the server's stderr), with the cause's exit code. */
function cannotStart(err: unknown): CopilotError {
  const why = errorMessage(err).split('\n')[0] ?? 'failed';
  return new CopilotError(`gns3-copilot mcp cannot start: ${why}`, err instanceof CopilotError ? err.exitCode : ExitCode.Controller);
}

function gateOf(settings: Settings): ToolGateOptions {
  const policy: ApprovePolicy = settings.approve ?? 'never';
  return { mode: settings.mode, policy };
}

/** Resolves when the client goes away or the process is told to stop; everything is closed by then. */
export async function runMcpCommand(settings: Settings, opts: McpCommandOptions = {}): Promise<number> {
  const env = opts.env ?? process.env;
  const log = opts.log ?? createLogger(settings.log_level);
  const gate = gateOf(settings);
  let listen: { host: string; port: number; token?: string } | undefined;
  if (opts.http !== undefined) {
    const { host, port } = parseListen(opts.http);
    if (!isLoopback(host) && !opts.listen)
      throw new UsageError(`--http ${opts.http}: not a loopback address; add --listen to serve other hosts (with a bearer token)`);
    const token = await resolveMcpToken(env);
    if (!isLoopback(host) && !token)
      throw new UsageError(
        `--http ${opts.http} --listen: refusing to serve a non-loopback address without a bearer token: set ${MCP_TOKEN_ENV} or store mcp_token in the keychain`,
      );
    if (token) registerSecret(token);
    listen = { host, port, ...(token ? { token } : {}) };
  }
  const rt = await McpRuntime.create({ settings, log });
  try {
    await rt.checkStart();
  } catch (err) {
    await rt.close();
    throw cannotStart(err);
  }
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  try {
    if (listen) {
      const { startHttpServer } = await import('./http.js');
      const http = await startHttpServer(rt, gate, { ...listen, sessionIdleMs: settings.mcp_session_idle_s * 1000 });
      process.stderr.write(
        `gns3-copilot MCP server (${gate.mode} mode, --approve ${gate.policy}) on ${http.url}${listen.token ? ' (bearer token required)' : ''}\n`,
      );
      if (!listen.token) process.stderr.write(`warning: no bearer token (${MCP_TOKEN_ENV}): any local process can call the tools\n`);
      await stopped;
      await http.close();
    } else {
      const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
      const { createMcpServer } = await import('./server.js');
      const server = createMcpServer(rt, gate);
      const transport = new StdioServerTransport();
      const closed = new Promise<void>((resolve) => {
        transport.onclose = () => resolve();
        process.stdin.once('end', () => resolve());
      });
      await server.connect(transport);
      log.info('mcp server on stdio', { mode: gate.mode, approve: gate.policy });
      await Promise.race([closed, stopped]);
      await server.close().catch(() => undefined);
    }
  } finally {
    await rt.close();
  }
  return 0;
}

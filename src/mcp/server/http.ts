/**
 * Streamable HTTP for `gns3-copilot mcp --http HOST:PORT`: one SDK transport and
 * Server per MCP session (Mcp-Session-Id), all sharing the runtime (device pool); a
 * session is released when its client ends it or goes away (./http-sessions.ts).
 * A bearer token, when configured, is checked before anything reaches the SDK; it is a
 * static token, so nothing here advertises OAuth (no WWW-Authenticate challenge, 404 on
 * the /.well-known paths).
 */
import http from 'node:http';
import { randomUUID, timingSafeEqual, createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../../errors.js';
import type { McpRuntime } from './runtime.js';
import type { ToolGateOptions } from './tools.js';
import { createMcpServer } from './server.js';
import { HttpSessions } from './http-sessions.js';

export interface HttpServerOptions {
  host: string;
  port: number;
  token?: string;
  /** a session with nothing open that no request reached for this long is released (./http-sessions.ts) */
  sessionIdleMs: number;
  /** test seam: the clock the sessions' idle time is read on */
  now?: () => number;
}

export interface RunningHttpServer {
  url: string;
  /** MCP sessions held now (each one an SDK Server and transport) */
  liveSessions(): number;
  close(): Promise<void>;
}

const MAX_BODY = 4 * 1024 * 1024;
/** The 401 text: what to send, where the server got its token; never the token. */
export const UNAUTHORIZED =
  "missing or wrong bearer token: send the header 'Authorization: Bearer <token>' with the token this server was started with (GNS3_COPILOT_MCP_TOKEN or gns3-copilot auth login --mcp-token); this server does not use OAuth";
const digest = (s: string) => createHash('sha256').update(s).digest();

export function tokenMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(.+)$/i.exec(header ?? '');
  return m ? timingSafeEqual(digest(m[1]!.trim()), digest(token)) : false;
}

function reply(res: http.ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) throw new Error('request body too large');
    chunks.push(c as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

export async function startHttpServer(rt: McpRuntime, gate: ToolGateOptions, opts: HttpServerOptions): Promise<RunningHttpServer> {
  const sessions = new HttpSessions(opts.sessionIdleMs, rt.log, opts.now);
  const loopbackHosts = ['127.0.0.1', 'localhost', '[::1]'];

  const httpServer = http.createServer((req, res) => {
    void (async () => {
      // Before the token check: a 401 on /.well-known/oauth-* would tell clients that OAuth
      // discovery is worth trying; a 404 says there is none.
      const path = (req.url ?? '/').split('?')[0];
      if (path !== '/mcp') {
        reply(res, 404, 'not found: the MCP endpoint is /mcp');
        return;
      }
      if (opts.token !== undefined && !tokenMatches(req.headers.authorization, opts.token)) {
        // No `WWW-Authenticate: Bearer`: clients (MCP Inspector, Claude Code) take it as the
        // start of an OAuth flow and show that flow's failure instead of this message, which
        // the SDK client puts in its error ("Error POSTing to endpoint: …").
        reply(res, 401, UNAUTHORIZED);
        return;
      }
      const sid = req.headers['mcp-session-id'];
      let body: unknown;
      if (req.method === 'POST') {
        try {
          body = await readJson(req);
        } catch (err) {
          reply(res, 400, `bad request: ${errorMessage(err)}`);
          return;
        }
      }
      if (typeof sid === 'string' && (await sessions.handle(sid, req, res, body))) return;
      if (sid !== undefined) {
        reply(res, 404, 'unknown or expired MCP session; initialize again');
        return;
      }
      if (req.method !== 'POST' || !isInitializeRequest(body)) {
        reply(res, 400, 'no MCP session: send an initialize request first');
        return;
      }
      const server = createMcpServer(rt, gate);
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => sessions.add(id, transport, server),
        enableDnsRebindingProtection: loopbackHosts.includes(opts.host),
        allowedHosts: loopbackHosts.flatMap((h) => [h, `${h}:${port()}`]),
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.forget(transport.sessionId);
      };
      await server.connect(transport);
      // the idle clock of a new session starts when its initialize is answered, not when it was made
      res.once('close', () => sessions.touch(transport.sessionId));
      await transport.handleRequest(req, res, body);
    })().catch((err) => {
      rt.log.error('mcp http request failed', { error: errorMessage(err) });
      reply(res, 500, 'internal error');
    });
  });
  const port = () => (httpServer.address() as AddressInfo | null)?.port ?? opts.port;
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(opts.port, opts.host.replace(/^\[|\]$/g, ''), () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const hostInUrl = opts.host.includes(':') && !opts.host.startsWith('[') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${hostInUrl}:${port()}/mcp`,
    liveSessions: () => sessions.size,
    close: async () => {
      await sessions.closeAll();
      httpServer.closeAllConnections();
      await new Promise<void>((r) => httpServer.close(() => r()));
    },
  };
}

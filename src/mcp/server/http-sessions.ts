/**
 * The live MCP sessions of `mcp --http` (one SDK transport and Server each) and when to let
 * one go. A client that ends its session with DELETE is released at once (the transport
 * closes); most clients just go away — the SDK client's close() drops its connections and
 * sends nothing — so a session with nothing open (no request in flight, no event stream)
 * that no request reached for `idleMs` is released too: its Server and transport are
 * closed and dropped, so nothing of that client stays in memory. A client that comes back
 * after that gets 404 "unknown or expired MCP session" and initializes again (MCP says so).
 */
import type http from 'node:http';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Logger } from '../../log.js';

interface Entry {
  transport: StreamableHTTPServerTransport;
  server: Server;
  /** requests in flight and event streams open: a session with any is never idle */
  open: number;
  /** when it last had something open or got a request (ms since epoch) */
  lastSeen: number;
}

export class HttpSessions {
  private readonly live = new Map<string, Entry>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly idleMs: number,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {
    // a quarter of the idle time: a session goes at most 1.25 × idleMs after its client left
    this.sweeper = setInterval(() => this.sweep(), Math.max(250, Math.min(60_000, Math.floor(idleMs / 4))));
    // the server's own listening socket keeps the process up, never this timer
    this.sweeper.unref();
  }

  /** live sessions (what a client holding an id can still use) */
  get size(): number {
    return this.live.size;
  }

  add(id: string, transport: StreamableHTTPServerTransport, server: Server): void {
    this.live.set(id, { transport, server, open: 0, lastSeen: this.now() });
  }

  /** A request of the session ended (its initialize, answered before the session was known here). */
  touch(id: string | undefined): void {
    const e = id === undefined ? undefined : this.live.get(id);
    if (e) e.lastSeen = this.now();
  }

  /**
   * Handles one request of a live session: the session counts as in use until the response
   * is over (for a GET, the event stream stays open as long as the client keeps it).
   */
  async handle(id: string, req: http.IncomingMessage, res: http.ServerResponse, body: unknown): Promise<boolean> {
    const e = this.live.get(id);
    if (!e) return false;
    e.open++;
    e.lastSeen = this.now();
    res.once('close', () => {
      e.open--;
      e.lastSeen = this.now();
    });
    await e.transport.handleRequest(req, res, body);
    return true;
  }

  /** The transport closed (DELETE, or the server closing it): forget the session. */
  forget(id: string): void {
    this.live.delete(id);
  }

  /** Releases the sessions nobody used for idleMs. */
  sweep(): void {
    const now = this.now();
    for (const [id, e] of this.live) {
      if (e.open > 0 || now - e.lastSeen < this.idleMs) continue;
      this.live.delete(id);
      this.log.info('mcp http: session released (client gone)', { idle_s: Math.round((now - e.lastSeen) / 1000) });
      void e.server.close().catch(() => undefined);
    }
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    const all = [...this.live.values()];
    this.live.clear();
    for (const e of all) await e.server.close().catch(() => undefined);
  }
}

/**
 * The fake controller's notification streams, as gns3-server 2.2.59 and 3.0.6 serve them
 * (handlers/api/controller/project_handler.py and notification_handler.py in 2.2,
 * api/routes/controller/projects.py and controller.py in 3.x; the queue in
 * notification_queue.py): a real WebSocket server (the `ws` package) and the HTTP stream.
 *
 * - Messages are `{"action", "event"}` written by Python's json.dumps(sort_keys=True).
 * - Every new listener gets a `ping` at once, then one after `pingMs` without an event.
 * - Project stream: node.*, link.*; controller stream: project.* (never on the project stream).
 * - 3.x WebSocket auth is `?token=` only: none → handshake 403; a bad one → a `log.error`
 *   frame, then close 1008. 2.2 with users: HTTP basic on the upgrade.
 * - Unknown project: 2.2 answers 404 instead of the upgrade; 3.x accepts and drops the TCP connection.
 * - **auto_close**: when a project-stream listener leaves a project whose auto_close is
 *   true, after `closeDelayMs` (the real 5 s by default) the project is closed if nobody
 *   listens: its nodes stop.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';

/** Python's json.dumps(sort_keys=True): ", " and ": " separators, sorted keys, ASCII only. */
export function pyJson(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map(pyJson).join(', ')}]`;
  if (typeof v === 'object') {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}: ${pyJson((v as Record<string, unknown>)[k])}`).join(', ')}}`;
  }
  if (typeof v === 'string')
    return JSON.stringify(v).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return JSON.stringify(v);
}

export interface NotificationHost {
  v2: boolean;
  /** 'ok', or why the request is refused */
  auth(url: URL, req: IncomingMessage): 'ok' | 'missing' | 'bad';
  projectExists(id: string): boolean;
  autoClose(id: string): boolean;
  /** closes the project as POST /close does */
  closeProject(id: string): void;
}

interface Listener {
  projectId: string | null;
  send(text: string): void;
  kill(): void;
  timer: NodeJS.Timeout;
}

export class FakeNotifications {
  private readonly listeners = new Set<Listener>();
  private readonly wss = new WebSocketServer({ noServer: true });
  /** the real controller waits 5 s before it closes an auto_close project nobody listens to */
  closeDelayMs = 5_000;
  pingMs = 5_000;
  /** when set, new stream connections are refused (503) */
  refusing = false;
  /** when set, only the WebSocket routes are refused (400, a proxy without upgrade support) */
  wsRefused = false;
  /** projects the auto_close rule closed, in order */
  readonly autoClosed: string[] = [];
  /** every listener that ever connected: its stream (null = the controller's) and transport */
  readonly connected: { projectId: string | null; transport: 'ws' | 'http' }[] = [];

  constructor(private readonly host: NotificationHost) {}

  attach(server: Server): void {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(req, socket, head));
  }

  /** the stream path of a request (`/projects/{id}/notifications[/ws]` or `/notifications[/ws]`), or undefined */
  static route(parts: string[]): { projectId: string | null; ws: boolean } | undefined {
    if (parts[0] === 'notifications' && parts.length <= 2 && (parts[1] === undefined || parts[1] === 'ws'))
      return { projectId: null, ws: parts[1] === 'ws' };
    if (parts[0] === 'projects' && parts[2] === 'notifications' && parts.length <= 4 && (parts[3] === undefined || parts[3] === 'ws'))
      return { projectId: parts[1]!, ws: parts[3] === 'ws' };
    return undefined;
  }

  /** The HTTP stream (the server's router hands it a request it authenticated). */
  httpStream(projectId: string | null, res: ServerResponse): void {
    if (this.refusing) {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'Service Unavailable' }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.flushHeaders();
    this.listen(
      projectId,
      (t) => res.write(`${t}\n`),
      () => res.destroy(),
      res,
    );
  }

  emitProject(projectId: string, action: string, event: unknown): void {
    for (const l of this.listeners) if (l.projectId === projectId) this.deliver(l, action, event);
  }

  emitController(action: string, event: unknown): void {
    for (const l of this.listeners) if (l.projectId === null) this.deliver(l, action, event);
  }

  /** listeners of a project's stream (or of the controller stream with null) */
  count(projectId: string | null): number {
    return [...this.listeners].filter((l) => l.projectId === projectId).length;
  }

  /** Drops every stream connection, as a controller restart or a network cut does. */
  dropAll(): void {
    for (const l of [...this.listeners]) l.kill();
  }

  close(): void {
    this.dropAll();
    this.wss.close();
  }

  private deliver(l: Listener, action: string, event: unknown): void {
    l.send(pyJson({ action, event }));
    l.timer.refresh();
  }

  private ping(projectId: string | null): Record<string, unknown> {
    const p: Record<string, unknown> = { cpu_usage_percent: 3.1, memory_usage_percent: 41.7 };
    if (!this.host.v2) p.disk_usage_percent = 12.5;
    if (projectId !== null) p.compute_id = 'local';
    return p;
  }

  private listen(
    projectId: string | null,
    send: (t: string) => void,
    kill: () => void,
    closes: { once(e: 'close', f: () => void): unknown },
  ): void {
    const l: Listener = {
      projectId,
      send,
      kill,
      timer: setInterval(() => this.deliver(l, 'ping', this.ping(projectId)), this.pingMs),
    };
    l.timer.unref();
    this.listeners.add(l);
    this.deliver(l, 'ping', this.ping(projectId));
    closes.once('close', () => this.left(l));
  }

  private left(l: Listener): void {
    if (!this.listeners.delete(l)) return;
    clearInterval(l.timer);
    const id = l.projectId;
    if (id === null || !this.host.projectExists(id) || !this.host.autoClose(id)) return;
    setTimeout(() => {
      if (this.count(id) > 0 || !this.host.projectExists(id)) return;
      this.autoClosed.push(id);
      this.host.closeProject(id);
    }, this.closeDelayMs).unref();
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    const prefix = this.host.v2 ? '/v2/' : '/v3/';
    const route = url.pathname.startsWith(prefix) ? FakeNotifications.route(url.pathname.slice(4).split('/').filter(Boolean)) : undefined;
    const refuse = (status: number, text: string) => {
      socket.end(`HTTP/1.1 ${status} ${text}\r\ncontent-type: text/plain\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`);
    };
    if (!route?.ws) return refuse(404, 'Not Found');
    if (this.refusing) return refuse(503, 'Service Unavailable');
    if (this.wsRefused) return refuse(400, 'Bad Request');
    const auth = this.host.auth(url, req);
    if (this.host.v2 && auth !== 'ok') return refuse(401, 'Unauthorized');
    if (!this.host.v2 && auth === 'missing') return refuse(403, 'Forbidden');
    if (route.projectId !== null && !this.host.projectExists(route.projectId) && this.host.v2) return refuse(404, 'Not Found');
    this.wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      if (auth === 'bad') {
        ws.send(
          pyJson({
            action: 'log.error',
            event: { message: 'Could not authenticate while connecting to controller WebSocket: Could not validate credentials' },
          }),
        );
        ws.close(1008);
        return;
      }
      if (route.projectId !== null && !this.host.projectExists(route.projectId)) return ws.terminate();
      ws.on('message', () => undefined);
      this.connected.push({ projectId: route.projectId, transport: 'ws' });
      this.listen(
        route.projectId,
        (t) => ws.send(t),
        () => ws.terminate(),
        ws,
      );
    });
  }
}

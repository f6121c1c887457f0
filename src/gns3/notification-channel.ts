/**
 * One connection to a controller notification stream: the WebSocket route (undici's
 * client, never hand-written framing) or the HTTP stream (newline-delimited JSON). It is
 * open once the first message came: the server sends a `ping` at once to every new
 * listener, so that message means the controller has registered us. The servers also send
 * a `ping` after 5 s without another event, so a connection silent much longer than that
 * is dead and is closed here (`silenceMs`). Reconnecting is the caller's job
 * (./notification-feed.ts).
 */
import type { Dispatcher } from 'undici';
import type { StreamResponse } from './http.js';
import { parseNotification, type Notification } from './notification-events.js';

/** What a channel needs from the controller client (Gns3Client implements it). */
export interface NotificationEndpoint {
  /** the ws:// or wss:// URL of an API path with the authentication the server expects there, and the client's dispatcher (TLS settings) */
  wsTarget(path: string, signal?: AbortSignal): Promise<{ url: string; headers: Record<string, string>; dispatcher: Dispatcher }>;
  openStream(path: string, opts?: { signal?: AbortSignal; timeoutMs?: number }): Promise<StreamResponse & { path: string }>;
  /** logs in again after the server refused the token (3.x) */
  reauthenticate(signal?: AbortSignal): Promise<void>;
}

/**
 * How a channel ended: `closed` after it was open, `failed` before (a refused handshake,
 * no server), `auth` when the server refused the credentials, `gone` when it does not know
 * the project (HTTP 404).
 */
export type ChannelEnd = { kind: 'closed' | 'failed' | 'auth' | 'gone'; message: string };

export interface ChannelCallbacks {
  onOpen(): void;
  onMessage(n: Notification): void;
  /** called once, unless the caller closed the channel itself */
  onEnd(end: ChannelEnd): void;
}

export interface Channel {
  close(): void;
}

export const DEFAULT_SILENCE_MS = 15_000;

/** Calls `onEnd` once and drops the silence timer; `close()` ends without calling it. */
function channelState(cb: ChannelCallbacks, silenceMs: number, kill: () => void) {
  let opened = false;
  let ended = false;
  let timer: NodeJS.Timeout | undefined;
  const end = (e: ChannelEnd) => {
    if (timer) clearTimeout(timer);
    if (ended) return;
    ended = true;
    kill();
    cb.onEnd(e);
  };
  const arm = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(
      () => end({ kind: opened ? 'closed' : 'failed', message: `no message from the controller for ${silenceMs / 1000} s` }),
      silenceMs,
    );
    timer.unref();
  };
  const message = (text: string) => {
    if (ended) return;
    arm();
    const n = parseNotification(text);
    if (!n) return;
    if (!opened) {
      opened = true;
      cb.onOpen();
    }
    cb.onMessage(n);
  };
  return {
    arm,
    end,
    message,
    get opened() {
      return opened;
    },
    get ended() {
      return ended;
    },
    close() {
      if (timer) clearTimeout(timer);
      ended = true;
      kill();
    },
  };
}

/** The WebSocket route. 3.x refuses a bad token with a `log.error` frame and close code 1008. */
export function openWsChannel(endpoint: NotificationEndpoint, path: string, cb: ChannelCallbacks, silenceMs = DEFAULT_SILENCE_MS): Channel {
  let ws: import('undici').WebSocket | undefined;
  let authRefused = false;
  const state = channelState(cb, silenceMs, () => {
    try {
      ws?.close(1000);
    } catch {
      // already closing
    }
  });
  state.arm();
  void (async () => {
    const [{ WebSocket }, target] = await Promise.all([import('./undici-websocket.js'), endpoint.wsTarget(path)]);
    if (state.ended) return;
    ws = new WebSocket(target.url, { headers: target.headers, dispatcher: target.dispatcher });
    ws.addEventListener('message', (ev) => {
      const text = typeof ev.data === 'string' ? ev.data : '';
      const n = parseNotification(text);
      const said = (n?.event as { message?: unknown } | undefined)?.message;
      if (n?.action === 'log.error' && typeof said === 'string' && /could not authenticate/i.test(said)) {
        authRefused = true;
        return;
      }
      state.message(text);
    });
    ws.addEventListener('close', (ev) => {
      if (authRefused || ev.code === 1008) return state.end({ kind: 'auth', message: 'the controller refused the token' });
      const why = ev.reason ? `${ev.code} ${ev.reason}` : String(ev.code);
      state.end({ kind: state.opened ? 'closed' : 'failed', message: `WebSocket closed (${why})` });
    });
  })().catch((err: unknown) => state.end({ kind: 'failed', message: err instanceof Error ? err.message : String(err) }));
  return { close: () => state.close() };
}

/** The HTTP stream: one JSON object per line, a status code we can read when it is refused. */
export function openHttpChannel(
  endpoint: NotificationEndpoint,
  path: string,
  cb: ChannelCallbacks,
  silenceMs = DEFAULT_SILENCE_MS,
): Channel {
  const ac = new AbortController();
  const state = channelState(cb, silenceMs, () => ac.abort());
  state.arm();
  void (async () => {
    const res = await endpoint.openStream(path, { signal: ac.signal, timeoutMs: silenceMs });
    if (res.status !== 200) {
      res.body.destroy();
      const kind = res.status === 401 || res.status === 403 ? 'auth' : res.status === 404 ? 'gone' : 'failed';
      return state.end({ kind, message: `HTTP ${res.status} from ${res.path}` });
    }
    let buffered = '';
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      buffered += chunk.toString('utf8');
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl).trim();
        buffered = buffered.slice(nl + 1);
        if (line) state.message(line);
      }
    }
    state.end({ kind: state.opened ? 'closed' : 'failed', message: 'the controller ended the stream' });
  })().catch((err: unknown) => {
    if (!state.ended) state.end({ kind: state.opened ? 'closed' : 'failed', message: err instanceof Error ? err.message : String(err) });
  });
  return { close: () => state.close() };
}

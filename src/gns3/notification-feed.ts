/**
 * A notification stream kept connected: the WebSocket route first, the HTTP stream when
 * the WebSocket cannot be opened (a proxy without upgrade support), reconnecting with
 * exponential backoff after every drop, logging in again when the controller refuses the
 * token. It reports when it is up (with `resumed` after a drop: events may have been
 * missed, the owner re-reads), down, or gone (the controller does not know the project).
 */
import type { Logger } from '../log.js';
import {
  DEFAULT_SILENCE_MS,
  openHttpChannel,
  openWsChannel,
  type Channel,
  type ChannelEnd,
  type NotificationEndpoint,
} from './notification-channel.js';
import type { Notification } from './notification-events.js';

export interface FeedOptions {
  endpoint: NotificationEndpoint;
  /** API paths (after /v2 or /v3) of the WebSocket route and of the HTTP stream */
  paths: { ws: string; http: string };
  log: Logger;
  onMessage(n: Notification): void;
  /** connected (again: `resumed`) */
  onUp?(resumed: boolean): void;
  /** lost, or could not connect; said once until it is up again */
  onDown?(reason: string): void;
  /** the controller does not know the project: the feed stops */
  onGone?(reason: string): void;
  /** first retry delay and cap (default 250 ms, 10 s) */
  backoff?: { firstMs: number; maxMs: number };
  silenceMs?: number;
}

/** WebSocket attempts that fail before any message, in a row, before the HTTP stream is tried. */
const WS_FAILURES_BEFORE_HTTP = 2;

export class NotificationFeed {
  private channel: Channel | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private everUp = false;
  private isUp = false;
  private downSaid = false;
  private attempt = 0;
  private wsFailures = 0;
  private transportKind: 'ws' | 'http' = 'ws';

  constructor(private readonly o: FeedOptions) {}

  get up(): boolean {
    return this.isUp;
  }

  get transport(): 'ws' | 'http' {
    return this.transportKind;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.connect();
  }

  /** Closes the connection and stops reconnecting. */
  stop(): void {
    this.stopped = true;
    this.isUp = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.channel?.close();
    this.channel = undefined;
  }

  private connect(): void {
    if (this.stopped) return;
    const open = this.transportKind === 'ws' ? openWsChannel : openHttpChannel;
    const path = this.transportKind === 'ws' ? this.o.paths.ws : this.o.paths.http;
    this.channel = open(
      this.o.endpoint,
      path,
      {
        onOpen: () => {
          const resumed = this.everUp;
          this.everUp = true;
          this.isUp = true;
          this.downSaid = false;
          this.attempt = 0;
          this.wsFailures = 0;
          this.o.log.info('gns3 notification stream up', { path, transport: this.transportKind, resumed });
          this.o.onUp?.(resumed);
        },
        onMessage: (n) => this.o.onMessage(n),
        onEnd: (end) => void this.ended(end),
      },
      this.o.silenceMs ?? DEFAULT_SILENCE_MS,
    );
  }

  private async ended(end: ChannelEnd): Promise<void> {
    this.channel = undefined;
    this.isUp = false;
    if (this.stopped) return;
    this.o.log.info('gns3 notification stream ended', { kind: end.kind, reason: end.message, transport: this.transportKind });
    if (end.kind === 'gone') {
      this.stop();
      this.o.onGone?.(end.message);
      return;
    }
    if (!this.downSaid) {
      this.downSaid = true;
      this.o.onDown?.(end.message);
    }
    if (end.kind === 'failed' && this.transportKind === 'ws' && ++this.wsFailures >= WS_FAILURES_BEFORE_HTTP) {
      this.o.log.info('gns3 notification WebSocket unavailable; using the HTTP stream', { reason: end.message });
      this.transportKind = 'http';
    }
    if (end.kind === 'auth') {
      try {
        await this.o.endpoint.reauthenticate();
      } catch (err) {
        this.o.log.warn('gns3 notification stream: login failed', { error: err instanceof Error ? err.message : String(err) });
      }
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    const { firstMs, maxMs } = this.o.backoff ?? { firstMs: 250, maxMs: 10_000 };
    const delay = Math.min(maxMs, firstMs * 2 ** this.attempt) * (0.8 + Math.random() * 0.4);
    this.attempt++;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.connect();
    }, delay);
    this.timer.unref();
  }
}

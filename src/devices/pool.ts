/**
 * Open device sessions, keyed by where they connect (transport://user@host:port),
 * so consecutive tool calls reuse a console instead of reconnecting. Broken
 * sessions are dropped; idle ones are closed after a while.
 */
import type { Logger } from '../log.js';
import { nullLogger } from '../log.js';
import { DeviceSession } from './session.js';
import { SshTransport } from './ssh.js';
import type { DeviceTarget } from './target.js';
import { TelnetTransport } from './telnet.js';
import type { Transport } from './transport.js';
import { shareSignal } from '../core/shared-signal.js';

export interface PoolOptions {
  openTimeoutMs: number;
  commandTimeoutMs: number;
  confirmAllow: string[];
  /** close sessions unused for this long (default 10 min) */
  idleMs?: number;
  log?: Logger;
}

export const POOL_SERVICE_KEY = 'devices.pool';

export function poolKey(t: DeviceTarget): string {
  return `${t.transport}://${t.username ? `${t.username}@` : ''}${t.host}:${t.port}`;
}

export class DevicePool {
  private readonly sessions = new Map<string, DeviceSession>();
  private readonly opening = new Map<string, Promise<DeviceSession>>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(readonly opts: PoolOptions) {
    const idle = opts.idleMs ?? 600_000;
    this.sweeper = setInterval(
      () => {
        for (const [k, s] of this.sessions) if (Date.now() - s.lastUsed > idle) this.drop(k);
      },
      Math.min(idle, 60_000),
    );
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** true when a usable session for this target is already open */
  has(t: DeviceTarget): boolean {
    return this.sessions.get(poolKey(t))?.usable ?? false;
  }

  async acquire(t: DeviceTarget, signal?: AbortSignal, extra?: { disablePaging?: boolean }): Promise<DeviceSession> {
    shareSignal(signal);
    const key = poolKey(t);
    const existing = this.sessions.get(key);
    if (existing?.usable) return existing;
    if (existing) this.drop(key);
    const pending = this.opening.get(key);
    if (pending) return pending;
    const p = this.open(t, signal, extra).finally(() => this.opening.delete(key));
    this.opening.set(key, p);
    const s = await p;
    this.sessions.set(key, s);
    s.transport.onClose(() => {
      if (this.sessions.get(key) === s) this.sessions.delete(key);
    });
    return s;
  }

  drop(keyOrTarget: string | DeviceTarget): void {
    const key = typeof keyOrTarget === 'string' ? keyOrTarget : poolKey(keyOrTarget);
    const s = this.sessions.get(key);
    this.sessions.delete(key);
    s?.close();
  }

  closeAll(): void {
    for (const k of [...this.sessions.keys()]) this.drop(k);
    clearInterval(this.sweeper);
  }

  /** Services in ToolContext.services are shut down through close() when the agent session ends. */
  close(): void {
    this.closeAll();
  }

  private async open(t: DeviceTarget, signal?: AbortSignal, extra?: { disablePaging?: boolean }): Promise<DeviceSession> {
    const started = Date.now();
    const transport: Transport =
      t.transport === 'ssh'
        ? await SshTransport.connect({
            host: t.host,
            port: t.port,
            username: t.username ?? '',
            ...(t.password !== undefined ? { password: t.password } : {}),
            ...(t.privateKey !== undefined ? { privateKey: t.privateKey } : {}),
            timeoutMs: this.opts.openTimeoutMs,
            ...(signal ? { signal } : {}),
          })
        : await TelnetTransport.connect({ host: t.host, port: t.port, timeoutMs: this.opts.openTimeoutMs, ...(signal ? { signal } : {}) });
    const remaining = Math.max(500, this.opts.openTimeoutMs - (Date.now() - started));
    const s = await DeviceSession.open(
      transport,
      {
        ...(t.platform ? { platform: t.platform } : {}),
        openTimeoutMs: remaining,
        commandTimeoutMs: this.opts.commandTimeoutMs,
        confirmAllow: this.opts.confirmAllow,
        ...(t.username !== undefined ? { username: t.username } : {}),
        ...(t.password !== undefined ? { password: t.password } : {}),
        ...(extra?.disablePaging !== undefined ? { disablePaging: extra.disablePaging } : {}),
        log: this.opts.log ?? nullLogger,
      },
      signal,
    );
    (this.opts.log ?? nullLogger).debug('device session open', {
      device: t.name,
      key: poolKey(t),
      platform: s.platform,
      ms: Date.now() - started,
    });
    return s;
  }
}

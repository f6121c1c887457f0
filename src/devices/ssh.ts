/**
 * SSH transport: an interactive shell with a pty (devices behave as on a
 * console: prompt, echo). Password and private-key authentication; host keys
 * are not pinned (lab devices regenerate them), like a console connection.
 */
// ssh2 loads on the first SSH connection: it instantiates a wasm module (16 MiB of memory)
// and ~2.5 MB of heap that a session without SSH devices should not carry.
import type { Client, ClientChannel } from 'ssh2';
import { ConnectError, TransportBase, isConnectFailure, type Transport } from './transport.js';

export interface SshOptions {
  host: string;
  port: number;
  username: string;
  password?: string;
  privateKey?: string | Buffer;
  passphrase?: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

export class SshTransport extends TransportBase implements Transport {
  readonly kind = 'ssh' as const;
  private constructor(
    private readonly client: Client,
    private readonly channel: ClientChannel,
  ) {
    super();
    const onData = (d: Buffer) => this.deliver(d);
    channel.on('data', onData);
    channel.stderr.on('data', onData);
    const end = (reason?: string) => this.ended(reason, () => client.end());
    channel.on('close', () => end('ssh channel closed by the device'));
    client.on('close', () => end('ssh connection closed'));
    client.on('error', (e) => end(e.message));
  }

  static async connect(opts: SshOptions): Promise<SshTransport> {
    const { Client } = await import('ssh2');
    return new Promise((resolve, reject) => {
      const client = new Client();
      let settled = false;
      const fail = (msg: string, transient = false) => {
        if (settled) return;
        settled = true;
        cleanup();
        client.end();
        reject(new ConnectError(msg, transient));
      };
      const onAbort = () => fail('aborted');
      const timer = setTimeout(() => fail(`ssh to ${opts.host}:${opts.port} timed out after ${opts.timeoutMs} ms`, true), opts.timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
      };
      if (opts.signal?.aborted) return onAbort();
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      // an authentication failure is not transient; a connection that could not be opened is
      client.on('error', (e) => fail(`ssh to ${opts.host}:${opts.port}: ${e.message}`, isConnectFailure(e)));
      client.on('ready', () => {
        client.shell({ term: 'vt100', cols: 511, rows: 0 }, (err, channel) => {
          if (err) return fail(`ssh shell on ${opts.host}:${opts.port}: ${err.message}`);
          if (settled) return;
          settled = true;
          cleanup();
          resolve(new SshTransport(client, channel));
        });
      });
      client.connect({
        host: opts.host,
        port: opts.port,
        username: opts.username,
        ...(opts.password !== undefined ? { password: opts.password } : {}),
        ...(opts.privateKey !== undefined ? { privateKey: opts.privateKey } : {}),
        ...(opts.passphrase !== undefined ? { passphrase: opts.passphrase } : {}),
        readyTimeout: opts.timeoutMs,
        keepaliveInterval: 15_000,
        tryKeyboard: opts.password !== undefined,
      });
      if (opts.password !== undefined) {
        client.on('keyboard-interactive', (_n, _i, _l, prompts, finish) => finish(prompts.map(() => opts.password!)));
      }
    });
  }

  write(text: string): void {
    if (!this.closed) this.channel.write(text);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.client.end();
  }
}

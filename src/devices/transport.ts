/**
 * What a session needs from a byte stream to a device console: send text,
 * receive decoded text, learn when it closes. Telnet and SSH implement it.
 */
import { StringDecoder } from 'node:string_decoder';
import { CopilotError } from '../errors.js';
export interface Transport {
  readonly kind: 'telnet' | 'ssh';
  readonly closed: boolean;
  write(text: string): void;
  /** one receiver; text is decoded (UTF-8) with protocol bytes removed */
  onData(cb: (text: string) => void): void;
  onClose(cb: (reason?: string) => void): void;
  close(): void;
}

/** What every transport keeps: the one receiver, the close listeners, the UTF-8 decoder. */
export abstract class TransportBase {
  closed = false;
  private receiver: (text: string) => void = () => {};
  private readonly closeCbs: ((reason?: string) => void)[] = [];
  private readonly decoder = new StringDecoder('utf8');

  onData(cb: (text: string) => void): void {
    this.receiver = cb;
  }

  onClose(cb: (reason?: string) => void): void {
    this.closeCbs.push(cb);
  }

  /** Bytes from the device: decoded (a split UTF-8 sequence waits for its rest) and handed on. */
  protected deliver(bytes: Buffer): void {
    const text = this.decoder.write(bytes);
    if (text) this.receiver(text);
  }

  /** The stream ended: closed, `release` (if any) frees the connection, listeners hear why; once. */
  protected ended(reason: string | undefined, release?: () => void): void {
    if (this.closed) return;
    this.closed = true;
    release?.();
    for (const cb of this.closeCbs) cb(reason);
  }
}

/** The console could not be reached (refused, timed out, auth failed). */
export class ConnectError extends CopilotError {
  constructor(
    message: string,
    /** the connection itself failed (refused, unreachable, timed out): trying again later may work; nothing was sent */
    readonly transient = false,
  ) {
    super(message);
  }
}

/** Socket errors of a connection that could not be opened (and that trying again later may open). */
const CONNECT_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

export function isConnectFailure(e: Error): boolean {
  const code = (e as NodeJS.ErrnoException).code;
  return code !== undefined && CONNECT_CODES.has(code);
}

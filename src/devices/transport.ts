/**
 * What a session needs from a byte stream to a device console: send text,
 * receive decoded text, learn when it closes. Telnet and SSH implement it.
 */
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

/** The console could not be reached (refused, timed out, auth failed). */
export class ConnectError extends CopilotError {}

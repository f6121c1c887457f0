/**
 * What a session needs from a byte stream to a device console: send text,
 * receive decoded text, learn when it closes. Telnet and SSH implement it.
 */
export interface Transport {
  readonly kind: 'telnet' | 'ssh';
  readonly closed: boolean;
  write(text: string): void;
  /** one receiver; text is decoded (UTF-8) with protocol bytes removed */
  onData(cb: (text: string) => void): void;
  onClose(cb: (reason?: string) => void): void;
  close(): void;
}

export class ConnectError extends Error {
  override name = 'ConnectError';
}

export class TransportClosedError extends Error {
  override name = 'TransportClosedError';
}

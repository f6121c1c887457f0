/**
 * A telnet client for device consoles (RFC 854/855). We accept the options a
 * console needs — the server echoes (ECHO), no go-ahead (SGA), 8-bit (BINARY) —
 * announce a terminal type and a wide window (TTYPE, NAWS, so devices do not
 * wrap or page by size) and refuse everything else. Telnet commands never
 * reach the session; CR NUL becomes CR.
 */
import net from 'node:net';
import { ConnectError, TransportBase, isConnectFailure, type Transport } from './transport.js';

/** command bytes (RFC 854) */
const { IAC, DONT, DO, WONT, WILL, SB, SE } = { IAC: 255, DONT: 254, DO: 253, WONT: 252, WILL: 251, SB: 250, SE: 240 } as const;
/** option codes: BINARY (RFC 856), ECHO (857), SGA (858), TTYPE (1091), NAWS (1073) */
const OPT = { BINARY: 0, ECHO: 1, SGA: 3, TTYPE: 24, NAWS: 31 } as const;

/** options we let the server enable (server WILL x → we say DO x) */
const ACCEPT_REMOTE = new Set<number>([OPT.BINARY, OPT.ECHO, OPT.SGA]);
/** options we offer to enable on our side (server DO x → we say WILL x) */
const ACCEPT_LOCAL = new Set<number>([OPT.BINARY, OPT.SGA, OPT.TTYPE, OPT.NAWS]);

export const NAWS_COLS = 511;

export interface TelnetOptions {
  host: string;
  port: number;
  timeoutMs: number;
  signal?: AbortSignal;
}

export class TelnetTransport extends TransportBase implements Transport {
  readonly kind = 'telnet' as const;
  /** parser state carried across TCP chunks */
  private state: 'data' | 'iac' | 'opt' | 'sb' | 'sbiac' = 'data';
  private verb = 0;
  private sb: number[] = [];
  private lastCr = false;
  /** negotiated state, so we answer each change once and never loop */
  private readonly remote = new Map<number, boolean>();
  private readonly local = new Map<number, boolean>();

  private constructor(private readonly sock: net.Socket) {
    super();
    sock.setNoDelay(true);
    // An idle pooled console must not keep a one-shot run alive; while a command
    // runs, the session's timeout timer keeps the process up.
    sock.unref();
    sock.on('data', (d: Buffer) => this.receive(d));
    const onEnd = (reason?: string) => this.ended(reason);
    sock.on('close', () => onEnd('connection closed by the device'));
    sock.on('error', (e) => onEnd(e.message));
  }

  static connect(opts: TelnetOptions): Promise<TelnetTransport> {
    return new Promise((resolve, reject) => {
      const sock = net.connect({ host: opts.host, port: opts.port });
      const fail = (msg: string, transient = false) => {
        cleanup();
        sock.destroy();
        reject(new ConnectError(msg, transient));
      };
      const onError = (e: Error) =>
        fail(`cannot connect to ${opts.host}:${opts.port}: ${(e as NodeJS.ErrnoException).code ?? e.message}`, isConnectFailure(e));
      const onAbort = () => fail('aborted');
      const timer = setTimeout(
        () => fail(`connect to ${opts.host}:${opts.port} timed out after ${opts.timeoutMs} ms`, true),
        opts.timeoutMs,
      );
      const cleanup = () => {
        clearTimeout(timer);
        sock.removeListener('error', onError);
        opts.signal?.removeEventListener('abort', onAbort);
      };
      if (opts.signal?.aborted) return onAbort();
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      sock.once('error', onError);
      sock.once('connect', () => {
        cleanup();
        resolve(new TelnetTransport(sock));
      });
    });
  }

  write(text: string): void {
    if (this.closed) return;
    const bytes = Buffer.from(text, 'utf8');
    // A literal 0xFF must be doubled in telnet data.
    const out = bytes.includes(IAC) ? Buffer.from([...bytes].flatMap((b) => (b === IAC ? [IAC, IAC] : [b]))) : bytes;
    this.sock.write(out);
  }

  close(): void {
    this.closed = true;
    this.sock.destroy();
  }

  private send(...bytes: number[]): void {
    if (!this.closed) this.sock.write(Buffer.from(bytes));
  }

  private receive(chunk: Buffer): void {
    const data: number[] = [];
    for (const b of chunk) {
      switch (this.state) {
        case 'data':
          if (b === IAC) this.state = 'iac';
          else if (b === 0 && this.lastCr)
            this.lastCr = false; // CR NUL = CR
          else {
            data.push(b);
            this.lastCr = b === 13;
          }
          break;
        case 'iac':
          if (b === IAC) {
            data.push(IAC);
            this.state = 'data';
          } else if (b >= WILL && b <= DONT) {
            this.verb = b;
            this.state = 'opt';
          } else if (b === SB) {
            this.sb = [];
            this.state = 'sb';
          } else this.state = 'data'; // NOP, GA, DM…: nothing to do
          break;
        case 'opt':
          this.negotiate(this.verb, b);
          this.state = 'data';
          break;
        case 'sb':
          if (b === IAC) this.state = 'sbiac';
          else this.sb.push(b);
          break;
        case 'sbiac':
          if (b === SE) {
            this.subnegotiation(this.sb);
            this.state = 'data';
          } else {
            if (b === IAC) this.sb.push(IAC);
            this.state = 'sb';
          }
          break;
      }
    }
    if (data.length > 0) {
      this.deliver(Buffer.from(data));
    }
  }

  private negotiate(verb: number, opt: number): void {
    if (verb === WILL || verb === WONT) {
      const want = verb === WILL && ACCEPT_REMOTE.has(opt);
      if (this.remote.get(opt) === want) return;
      this.remote.set(opt, want);
      this.send(IAC, want ? DO : DONT, opt);
      return;
    }
    const want = verb === DO && ACCEPT_LOCAL.has(opt);
    if (this.local.get(opt) === want) {
      if (want && opt === OPT.NAWS) this.sendWindowSize();
      return;
    }
    this.local.set(opt, want);
    this.send(IAC, want ? WILL : WONT, opt);
    if (want && opt === OPT.NAWS) this.sendWindowSize();
  }

  private sendWindowSize(): void {
    // 511 columns, 0 rows: wide enough not to wrap, "unknown height" so no paging by size.
    // A 0xFF inside a subnegotiation is doubled like any data byte (511 = 0x01 0xFF).
    const size = [NAWS_COLS >> 8, NAWS_COLS & 0xff, 0, 0].flatMap((b) => (b === IAC ? [IAC, IAC] : [b]));
    this.send(IAC, SB, OPT.NAWS, ...size, IAC, SE);
  }

  private subnegotiation(sb: number[]): void {
    // TTYPE SEND (1) → IS (0) "VT100"
    if (sb[0] === OPT.TTYPE && sb[1] === 1) {
      this.send(IAC, SB, OPT.TTYPE, 0, ...Buffer.from('VT100'), IAC, SE);
    }
  }
}

/**
 * One process, many one-shots at once: the warm process (./server.ts) gives each request its own
 * view of what a CLI run takes from its process — `process.env`, stdin/stdout/stderr, `exit`,
 * and the SIGINT/SIGTERM/SIGHUP listeners — so the program (src/cli/program.ts) runs unchanged,
 * as it does in a process of its own. The view follows the request through every callback and
 * promise it starts (AsyncLocalStorage); code outside any request sees the real process.
 * Handlers of process-wide events (`exit`, uncaught errors) that a request installs are not
 * kept: the warm process answers those for all its requests.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { EventEmitter } from 'node:events';
import { Readable, Writable } from 'node:stream';

/** How a request's output leaves and how it ends (the socket, in ./server.ts). */
export interface RequestIo {
  env: Record<string, string>;
  tty: { stdin: boolean; stdout: boolean; stderr: boolean };
  columns?: number;
  colorDepth?: number;
  write(stream: 'O' | 'E', bytes: Buffer): void;
  end(code: number): void;
  /** the run is the client's to run in its own process (see RequestProcess.handBack) */
  handBack(): void;
}

/** A request's stdout or stderr: as much of a TTY stream as the one-shot code asks of one. */
class RequestOutput extends Writable {
  constructor(
    private readonly send: (bytes: Buffer) => void,
    readonly isTTY: boolean,
    readonly columns: number | undefined,
    private readonly colorDepth: number,
  ) {
    super();
  }

  // No backpressure: a one-shot writes kilobytes, and a client gone mid-run must not hold it.
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.send(chunk);
    done();
  }

  getColorDepth(): number {
    return this.colorDepth;
  }

  hasColors(count = 16): boolean {
    return this.isTTY && 2 ** this.colorDepth >= count;
  }
}

/** One request's process. */
export class RequestProcess {
  readonly signals = new EventEmitter();
  readonly stdout: RequestOutput;
  readonly stderr: RequestOutput;
  readonly stdin: Readable & { isTTY?: boolean };
  private ended = false;

  constructor(readonly io: RequestIo) {
    const depth = io.colorDepth ?? 1;
    const send = (stream: 'O' | 'E') => (bytes: Buffer) => !this.ended && io.write(stream, bytes);
    this.stdout = new RequestOutput(send('O'), io.tty.stdout, io.columns, depth);
    this.stderr = new RequestOutput(send('E'), io.tty.stderr, io.columns, depth);
    // The prompt is on the command line (./client.ts sends only those), so nothing should read
    // stdin; a command line that reads it after all (`--project -p`: `-p` a project's name, the
    // prompt piped) is handed back, and the client reads its own stdin.
    const stdin = new Readable({
      read: () => {
        this.handBack();
        stdin.push(null);
      },
    });
    this.stdin = Object.assign(stdin, { isTTY: io.tty.stdin });
  }

  get done(): boolean {
    return this.ended;
  }

  /** `process.exit` of the request: its exit code goes out, and later output is dropped. */
  exit(code: number): void {
    if (this.ended) return;
    this.ended = true;
    this.io.end(code);
  }

  /**
   * The run needs the client's own process — its stdin, or its terminal for the TUI — so the
   * client runs the command line itself: nothing of this run reaches it any more.
   */
  handBack(): void {
    if (this.ended) return;
    this.ended = true;
    this.io.handBack();
  }

  /** A signal the client received (or SIGTERM when the client went away): to the request's own listeners, in the request. */
  signal(name: string): void {
    if (SIGNALS.has(name)) asRequest(this, () => this.signals.emit(name, name));
  }
}

const SIGNALS = new Set(['SIGINT', 'SIGTERM', 'SIGHUP']);
/** Events of the whole process: a request's handlers for them are not installed. */
const PROCESS_WIDE = new Set(['exit', 'beforeExit', 'uncaughtException', 'unhandledRejection']);

const requests = new AsyncLocalStorage<RequestProcess>();
let installed = false;

/** Runs `fn` (and all it starts) as `request`'s process. */
export function asRequest<T>(request: RequestProcess, fn: () => T): T {
  return requests.run(request, fn);
}

/** The warm process's request this code runs for, if any. */
export const currentRequest = (): RequestProcess | undefined => requests.getStore();

type Listener = (...args: unknown[]) => void;
const LISTENER_METHODS = ['on', 'addListener', 'once', 'prependListener', 'prependOnceListener', 'off', 'removeListener'] as const;

/** Gives every request its own process view from now on (once; the warm process only). */
export function installProcessScope(): void {
  if (installed) return;
  installed = true;
  const current = () => requests.getStore();
  const realEnv = process.env;
  const envOf = (): Record<string, string | undefined> => current()?.io.env ?? realEnv;
  process.env = new Proxy(realEnv, {
    get: (_t, key) => (typeof key === 'string' ? envOf()[key] : undefined),
    set: (_t, key, value) => Reflect.set(envOf(), key, String(value)),
    has: (_t, key) => Reflect.has(envOf(), key),
    deleteProperty: (_t, key) => Reflect.deleteProperty(envOf(), key),
    ownKeys: () => Reflect.ownKeys(envOf()),
    getOwnPropertyDescriptor: (_t, key) => {
      const d = Reflect.getOwnPropertyDescriptor(envOf(), key);
      return d && { ...d, configurable: true };
    },
  });

  for (const name of ['stdout', 'stderr', 'stdin'] as const) {
    const real = process[name];
    Object.defineProperty(process, name, {
      configurable: true,
      enumerable: true,
      get: () => current()?.[name] ?? real,
    });
  }

  const realExit = process.exit.bind(process);
  process.exit = (code?: number | string | null): never => {
    const request = current();
    if (!request) return realExit(code);
    request.exit(Number(code ?? 0));
    return undefined as never;
  };

  // The listener methods, for a request: its signals go to its own emitter, process-wide events nowhere.
  const target = (event: string | symbol): EventEmitter | 'none' | undefined => {
    const request = current();
    if (!request || typeof event !== 'string') return undefined;
    if (SIGNALS.has(event)) return request.signals;
    return PROCESS_WIDE.has(event) ? 'none' : undefined;
  };
  for (const method of LISTENER_METHODS) {
    const on = (emitter: EventEmitter, event: string | symbol, listener: Listener) => emitter[method](event, listener);
    // the process's own methods are EventEmitter's (process.on === EventEmitter.prototype.on)
    const real = EventEmitter.prototype[method].bind(process);
    Object.defineProperty(process, method, {
      configurable: true,
      writable: true,
      value: (event: string | symbol, listener: Listener) => {
        const to = target(event);
        if (to === undefined) return real(event, listener);
        if (to !== 'none') on(to, event, listener);
        return process;
      },
    });
  }
  const realCount = process.listenerCount.bind(process);
  Object.defineProperty(process, 'listenerCount', {
    configurable: true,
    writable: true,
    value: (event: string | symbol) => {
      const to = target(event);
      if (to === undefined) return realCount(event);
      return to === 'none' ? 0 : to.listenerCount(event);
    },
  });
}

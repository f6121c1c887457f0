/**
 * The warm one-shot process (docs/cli.md, Warm one-shots): one per user, working directory and
 * build, started by the first one-shot that finds none (./client.ts), on the one-file bundle.
 * It has loaded the program once; each one-shot that connects runs in it as in a process of
 * its own (./process-scope.ts), many at once, so a one-shot costs its own work and not the
 * start-up of Node and of ~4 MB of JavaScript. It leaves when no one-shot came for the idle
 * time (GNS3_COPILOT_WARM_IDLE_S), and at once on an error it cannot pin on one request —
 * after telling every running one the way its own process would have.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { FrameReader, frame, type WarmRequest } from './frames.js';
import { RequestProcess, asRequest, installProcessScope } from './process-scope.js';
import { connect, privateDir } from './socket.js';
import { WARM_SERVE_ENV } from '../route.js';
import { inOwnRun } from '../../core/run-state.js';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** Seconds the warm process waits for the next one-shot before it exits (default 900). */
export const WARM_IDLE_ENV = 'GNS3_COPILOT_WARM_IDLE_S';
const DEFAULT_IDLE_S = 900;

/** A socket file left by a process that is gone: nobody answers on it. */
async function stale(path: string): Promise<boolean> {
  const probe = await connect(path);
  probe?.destroy();
  return !probe;
}

function listen(server: Server, path: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const onError = async (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EADDRINUSE') return reject(err);
      // another warm process got there first: it serves; this one leaves
      if (!(await stale(path))) return resolve(false);
      rmSync(path, { force: true });
      server.once('error', reject);
      server.listen(path, () => resolve(true));
    };
    server.once('error', (err) => void onError(err));
    server.listen(path, () => resolve(true));
  });
}

/** What the warm process runs for each one-shot: the command line's program (src/cli/program.ts, a floor above). */
export type ProgramRunner = (argv: readonly string[]) => Promise<void>;

/** Serves one-shots on `path` with the program `load` gives until idle; the process exits then. */
export async function serve(path: string, load: () => Promise<ProgramRunner>): Promise<void> {
  const lock = `${path}.starting`;
  if (!privateDir(dirname(path))) {
    rmSync(lock, { force: true });
    process.exit(2);
  }
  const idleMs = Math.max(1, Number(process.env[WARM_IDLE_ENV]) || DEFAULT_IDLE_S) * 1000;
  delete process.env[WARM_SERVE_ENV];
  installProcessScope();
  const runProgram = await load();
  // what every one-shot loads next, loaded before the first one asks
  await Promise.all([import('../../commands/main.js'), import('../../commands/oneshot.js'), import('../../commands/agent-session.js')]);

  const running = new Set<RequestProcess>();
  let idle: NodeJS.Timeout | undefined;
  const server = createServer((socket) => accept(socket));
  const sockets = new Set<Socket>();
  // the exit codes already sent reach their clients before the process goes (at most 2 s)
  const leave = (code: number) => {
    server.close();
    rmSync(path, { force: true });
    rmSync(`${path}.pid`, { force: true });
    const flushed = [...sockets].map((s) => new Promise((r) => s.once('close', r)));
    void Promise.race([Promise.all(flushed), sleep(2_000)]).then(() => process.exit(code));
  };
  const waitIdle = () => {
    clearTimeout(idle);
    if (running.size === 0 && sockets.size === 0) idle = setTimeout(() => leave(0), idleMs);
  };
  // an error no request can be told apart for ends them all as their own processes would end (exit 1), then this one
  const fatal = (err: unknown) => {
    const line = `error: internal error: ${err instanceof Error ? err.message.split('\n')[0] : String(err)} (in the warm one-shot process)\n`;
    for (const r of running) {
      r.stderr.write(line);
      r.exit(1);
    }
    leave(1);
  };
  process.on('uncaughtException', fatal);
  process.on('unhandledRejection', fatal);
  for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(s, () => leave(0));

  function accept(socket: Socket): void {
    clearTimeout(idle);
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      waitIdle();
    });
    let request: RequestProcess | undefined;
    const finish = (last: Buffer) => {
      if (request) running.delete(request);
      if (socket.writable) socket.end(last);
      waitIdle();
    };
    const start = (req: WarmRequest) => {
      const r = new RequestProcess({
        env: req.env,
        tty: req.tty,
        ...(req.columns ? { columns: req.columns } : {}),
        ...(req.colorDepth ? { colorDepth: req.colorDepth } : {}),
        write: (stream, bytes) => socket.writable && socket.write(frame(stream, bytes)),
        end: (code) => finish(frame('X', JSON.stringify({ code }))),
        handBack: () => finish(frame('L', '')),
      });
      request = r;
      running.add(r);
      socket.write(frame('A', ''));
      void asRequest(r, () => inOwnRun(() => runProgram(req.argv))).then(
        () => r.exit(0),
        (err: unknown) => {
          r.stderr.write(`error: internal error: ${err instanceof Error ? err.message : String(err)}\n`);
          r.exit(1);
        },
      );
    };
    const frames = new FrameReader((kind, payload) => {
      if (kind === 'S') return request?.signal(payload.toString());
      if (kind !== 'R' || request) return;
      try {
        start(JSON.parse(payload.toString()) as WarmRequest);
      } catch {
        socket.destroy();
      }
    });
    socket.on('data', (chunk: Buffer) => frames.push(chunk));
    socket.on('error', () => undefined);
    // the client is gone (killed, or its terminal closed): the run stops as at a SIGTERM
    socket.on('close', () => request && !request.done && request.signal('SIGTERM'));
  }

  const listening = await listen(server, path).catch(() => false);
  rmSync(lock, { force: true });
  if (!listening) process.exit(0);
  chmodSync(path, 0o600);
  // who serves this socket, for `kill` (and the tests)
  writeFileSync(`${path}.pid`, `${process.pid}\n`, { mode: 0o600 });
  waitIdle();
}

/**
 * A one-shot through this user's warm process (./server.ts; docs/cli.md, Warm one-shots): the
 * command line, environment and terminal go over the socket, the run's stdout, stderr and exit
 * code come back, and Ctrl-C / SIGTERM / SIGHUP go to the run. With no warm process listening,
 * the first client starts one (a lock file keeps thirty clients from starting thirty) and runs
 * its own one-shot itself, as without warm one-shots; the others wait for the warm process a
 * few seconds, and one that still has none runs its own too — as a client does with a run the
 * warm process hands back (it needs this process's stdin or terminal). Node builtins only:
 * this runs before anything else of the program.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, rmSync, statSync } from 'node:fs';
import type { Socket } from 'node:net';
import { isatty } from 'node:tty';
import { setTimeout as sleep } from 'node:timers/promises';
import { FrameReader, frame, type WarmRequest } from './frames.js';
import { MAX_SOCKET_PATH, connect, warmSocket } from './socket.js';
import { WARM_SERVE_ENV, type WarmMode } from '../route.js';
import { fileURLToPath } from 'node:url';

/** How long a client waits for a warm process that is starting before it runs the one-shot itself. */
const START_WAIT_MS = 5_000;
/** A start lock older than this belongs to a start that failed. */
const LOCK_STALE_MS = 10_000;
const POLL_MS = 25;

/** Is the prompt on the command line? Only such one-shots go warm: a piped prompt is read by the client's own stdin. */
export function promptOnCommandLine(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    if (a === '-p' || a === '--prompt' || a.startsWith('--prompt=') || (/^-p./.test(a) && !a.startsWith('--'))) return true;
  }
  return false;
}

/** Starts a warm process unless another client is starting one; says whether it did. */
function startServer(path: string, entry: string): boolean {
  const lock = `${path}.starting`;
  const held = statSync(lock, { throwIfNoEntry: false });
  if (held && Date.now() - held.mtimeMs < LOCK_STALE_MS) return false;
  if (held) rmSync(lock, { force: true });
  try {
    closeSync(openSync(lock, 'wx', 0o600));
  } catch {
    return false; // another client took it between the two lines
  }
  const child = spawn(process.execPath, [...process.execArgv, entry], {
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, [WARM_SERVE_ENV]: path },
  });
  child.on('error', () => rmSync(lock, { force: true }));
  child.unref();
  return true;
}

/**
 * The warm process at `path`, or why there is none for this run: this client has just started
 * one (and runs its own one-shot meanwhile, as fast as it ever ran), or the one another client
 * is starting did not answer in time.
 */
async function reach(path: string, entry: string): Promise<Socket | 'started' | 'not answering'> {
  const live = await connect(path);
  if (live) return live;
  if (startServer(path, entry)) return 'started';
  const deadline = Date.now() + START_WAIT_MS;
  while (Date.now() < deadline) {
    await sleep(POLL_MS);
    const socket = await connect(path);
    if (socket) return socket;
  }
  return 'not answering';
}

function requestOf(argv: readonly string[]): WarmRequest {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  const tty = { stdin: isatty(0), stdout: isatty(1), stderr: isatty(2) };
  const term = tty.stdout ? process.stdout : tty.stderr ? process.stderr : undefined;
  return {
    argv: [...argv],
    env,
    tty,
    ...(term?.columns ? { columns: term.columns } : {}),
    ...(term ? { colorDepth: term.getColorDepth() } : {}),
  };
}

/**
 * Runs the request through the warm socket; resolves with its exit code, or with why the caller
 * is to run it itself: the warm process handed it back, or closed before it started the run
 * (it was leaving, idle).
 */
function proxy(socket: Socket, request: WarmRequest): Promise<number | 'handed back' | 'not started'> {
  return new Promise((resolve) => {
    let code: number | undefined;
    let started = false;
    let handedBack = false;
    let signals = 0;
    const forward = (name: NodeJS.Signals) => {
      // a second Ctrl-C leaves at once, as the run itself would
      if (++signals > 1) process.exit(130);
      if (socket.writable) socket.write(frame('S', name));
    };
    const names = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
    for (const s of names) process.on(s, forward);
    // a reader gone from our stdout stops the printing, not the run (src/output/reader-gone.ts)
    for (const out of [process.stdout, process.stderr]) out.on('error', () => undefined);
    const frames = new FrameReader((kind, payload) => {
      if (kind === 'A') started = true;
      else if (kind === 'O' && process.stdout.writable) process.stdout.write(payload);
      else if (kind === 'E' && process.stderr.writable) process.stderr.write(payload);
      else if (kind === 'X') code = Number((JSON.parse(payload.toString()) as { code: unknown }).code);
      else if (kind === 'L') handedBack = true;
    });
    socket.on('data', (chunk: Buffer) => frames.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      for (const s of names) process.off(s, forward);
      if (handedBack || !started) return resolve(handedBack ? 'handed back' : 'not started');
      if (code === undefined || !Number.isInteger(code)) {
        process.stderr.write('error: internal error: the warm one-shot process ended before the run did\n');
        code = 1;
      }
      resolve(code);
    });
    socket.write(frame('R', JSON.stringify(request)));
  });
}

/**
 * Runs the one-shot `argv` through the warm process of `bundle` (the CLI's `entry` starts one);
 * resolves with the exit code, or undefined when the caller is to run it itself: the prompt is
 * not on the command line, or no warm process answered.
 */
export async function viaWarm(argv: readonly string[], bundle: URL, entry: URL, mode: WarmMode): Promise<number | undefined> {
  if (!promptOnCommandLine(argv)) return undefined;
  const report = (how: string) => mode === 'report' && process.stderr.write(`warm: ${how}\n`);
  const path = warmSocket(fileURLToPath(bundle), process.env, process.cwd());
  const reached = !path
    ? 'no private socket directory'
    : Buffer.byteLength(path) > MAX_SOCKET_PATH
      ? `socket path longer than ${MAX_SOCKET_PATH} bytes`
      : await reach(path, fileURLToPath(entry));
  if (typeof reached === 'string') {
    report(reached === 'started' ? 'started (this run in its own process)' : `local (${reached})`);
    return undefined;
  }
  report('used');
  const code = await proxy(reached, requestOf(argv));
  if (code === 'handed back') report('local (handed back: the run needs this process)');
  else if (code === 'not started') report('local (the warm process left before the run started)');
  return typeof code === 'number' ? code : undefined;
}

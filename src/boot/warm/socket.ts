/**
 * Where the warm one-shot process of this user listens (docs/cli.md, Warm one-shots): a Unix
 * socket in a directory only this user can enter — $XDG_RUNTIME_DIR/gns3-copilot, else
 * gns3-copilot-UID in the temporary directory — created with mode 0700 and refused when it is
 * a link, another user's, or open to others. The socket's name is a digest of everything one
 * process cannot serve two ways: the bundle's build, Node and its flags, the working directory
 * (relative paths on the command line) and the D-Bus session (the keychain's native library
 * reads it once). Everything else a one-shot reads from its environment travels with each
 * request. Loaded before anything else of a one-shot: node builtins only.
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createConnection, type Socket } from 'node:net';
import { join } from 'node:path';

/** The longest path a Unix socket can have (sun_path is 108 bytes with its NUL). */
export const MAX_SOCKET_PATH = 107;

const uid = (): number | undefined => (typeof process.getuid === 'function' ? process.getuid() : undefined);

/** A directory this user owns, that no one else may enter, and that is not a link. */
export function privateDir(dir: string): boolean {
  const st = lstatSync(dir, { throwIfNoEntry: false });
  return !!st && st.isDirectory() && st.uid === uid() && (st.mode & 0o077) === 0;
}

/** The directory of this user's warm sockets (created when missing), or undefined when no private one can be had. */
export function socketDir(env: NodeJS.ProcessEnv): string | undefined {
  const runtime = env.XDG_RUNTIME_DIR;
  const dir = runtime && privateDir(runtime) ? join(runtime, 'gns3-copilot') : join(tmpdir(), `gns3-copilot-${uid() ?? 'user'}`);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch {
    // there already (checked below), or not creatable: no warm process
  }
  return privateDir(dir) ? dir : undefined;
}

/** The socket of the warm process that serves one-shots of `bundle` run by Node with `execArgv` from `cwd` with `env`, or undefined (see socketDir). */
export function warmSocket(
  bundle: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
  execArgv: readonly string[] = process.execArgv,
): string | undefined {
  const dir = socketDir(env);
  if (!dir) return undefined;
  const st = statSync(bundle);
  const key = [
    bundle,
    st.size,
    Math.floor(st.mtimeMs),
    process.version,
    process.arch,
    execArgv.join(' '),
    env.NODE_OPTIONS ?? '',
    cwd,
    env.DBUS_SESSION_BUS_ADDRESS ?? '',
  ];
  return join(dir, `warm-${createHash('sha256').update(key.join('\0')).digest('hex').slice(0, 16)}.sock`);
}

/** A connection to the warm process at `path`, or undefined when none answers there (no socket file, or one nobody listens on). */
export function connect(path: string): Promise<Socket | undefined> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    socket.once('connect', () => resolve(socket));
    socket.once('error', () => resolve(undefined));
  });
}

/**
 * A private, real Secret Service for tests: a session dbus-daemon plus an
 * unlocked gnome-keyring-daemon, with HOME and XDG_RUNTIME_DIR in temp dirs so
 * the user's own keyring is never touched. Missing binaries are a failure, not
 * a skip (.ci/run installs dbus and gnome-keyring).
 *
 *   const ss = await startSecretService();
 *   spawn(bin, args, { env: { ...process.env, ...ss.env } });
 *   await ss.stop();
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';

export interface SecretService {
  /** env to merge into a child's environment (DBUS_SESSION_BUS_ADDRESS, HOME, XDG_*) */
  env: Record<string, string>;
  root: string;
  stop(): Promise<void>;
}

function requireBinary(name: string): void {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
  } catch {
    throw new Error(`test peer '${name}' is missing: install dbus and gnome-keyring (see .ci/run)`);
  }
}

async function readFirstLine(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error('dbus-daemon did not print its address')), timeoutMs);
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const nl = buf.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve(buf.slice(0, nl).trim());
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`dbus-daemon exited early (${code})`));
    });
  });
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), 2_000);
  await exited;
  clearTimeout(t);
}

export async function startSecretService(opts: { unlock?: boolean } = {}): Promise<SecretService> {
  requireBinary('dbus-daemon');
  requireBinary('gnome-keyring-daemon');
  const root = mkdtempSync(join(tmpdir(), `gns3c-keyring-${process.pid}-`));
  const home = join(root, 'home');
  const runtime = join(root, 'run');
  mkdirSync(home, { recursive: true });
  mkdirSync(runtime, { recursive: true });
  chmodSync(runtime, 0o700);
  const baseEnv: Record<string, string> = {
    HOME: home,
    XDG_RUNTIME_DIR: runtime,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_STATE_HOME: join(home, '.local/state'),
  };

  const bus = spawn('dbus-daemon', ['--session', '--nofork', '--print-address=1'], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...baseEnv },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const address = await readFirstLine(bus, 5_000);
  const env = { ...baseEnv, DBUS_SESSION_BUS_ADDRESS: address };

  // --foreground keeps the daemon our child so we can stop it by PID.
  const args = ['--foreground', '--components=secrets'];
  if (opts.unlock !== false) args.push('--unlock');
  const keyring = spawn('gnome-keyring-daemon', args, {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  // --unlock reads the login keyring password from stdin (creating the keyring on first use).
  if (opts.unlock !== false) keyring.stdin.end('test-keyring-password');
  else keyring.stdin.end();

  // Wait until the daemon owns org.freedesktop.secrets on our bus.
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (keyring.exitCode !== null) {
      await kill(bus);
      throw new Error(`gnome-keyring-daemon exited early (${keyring.exitCode})`);
    }
    try {
      const names = execFileSync(
        'dbus-send',
        ['--session', '--print-reply', '--dest=org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus.ListNames'],
        { env: { ...process.env, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
      );
      if (names.includes('org.freedesktop.secrets')) break;
    } catch {
      // bus not ready yet
    }
    if (Date.now() > deadline) {
      await kill(keyring);
      await kill(bus);
      throw new Error('gnome-keyring-daemon did not register org.freedesktop.secrets');
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  return {
    env,
    root,
    async stop() {
      await kill(keyring);
      await kill(bus);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

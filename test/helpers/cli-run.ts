/**
 * Runs the built binary (bin/gns3-copilot.js -> dist/, built by the vitest
 * globalSetup) in an isolated environment: HOME and XDG dirs in a temp dir,
 * no system config, and no D-Bus unless the test passes one, so nothing ever
 * touches the developer's real config or keyring.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(ROOT, 'bin', 'gns3-copilot.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A fresh HOME with XDG dirs inside it; the returned env is a complete child environment. */
export function isolatedEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const home = mkdtempSync(join(tmpdir(), `gns3c-cli-${process.pid}-`));
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_STATE_HOME: join(home, '.local/state'),
    XDG_RUNTIME_DIR: join(home, 'run'),
    GNS3_COPILOT_SYSTEM_CONFIG: join(home, 'no-system-config.json'),
    // a bus address that cannot connect: "no Secret Service" unless a test brings one
    DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(home, 'no-bus')}`,
    ...extra,
  };
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

export function runCli(
  args: string[],
  opts: { env?: Record<string, string>; input?: string; cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: opts.env ?? isolatedEnv(),
      cwd: opts.cwd ?? opts.env?.HOME ?? ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}

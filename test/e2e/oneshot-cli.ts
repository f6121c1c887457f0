/** Runs the built CLI (bin/gns3-copilot.js) as a child process with an isolated HOME/XDG/data dir. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(ROOT, 'bin/gns3-copilot.js');

export interface CliEnv {
  home: string;
  env: NodeJS.ProcessEnv;
  cleanup(): void;
}

export function cliEnv(extra: NodeJS.ProcessEnv = {}): CliEnv {
  const home = mkdtempSync(join(tmpdir(), 'gc-e2e-'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_DATA_HOME: join(home, 'data'),
    XDG_STATE_HOME: join(home, 'state'),
    GNS3_COPILOT_KEYCHAIN: 'off',
    GNS3_COPILOT_LLM_RETRY_MS: '20',
    GNS3_COPILOT_SYSTEM_CONFIG: join(home, 'no-system-config.json'),
    NO_COLOR: '1',
    ...extra,
  };
  return { home, env, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}

export function llmFlags(url: string, model = 'fake-model'): string[] {
  return ['--provider', 'custom', '--base-url', url, '--model', model, '--context-limit', '32'];
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  opts: {
    stdin?: string;
    onSpawn?: (c: ChildProcess) => void;
    timeoutMs?: number;
    /** another copy of the package's bin */ bin?: string;
    /** the working directory (default: the env's HOME) */ cwd?: string;
  } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [opts.bin ?? BIN, ...args], { env, cwd: opts.cwd ?? env.HOME, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`CLI timed out: ${args.join(' ')}\n${stderr}`));
    }, opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    if (opts.stdin !== undefined) child.stdin.end(opts.stdin);
    else child.stdin.end();
    opts.onSpawn?.(child);
  });
}

/** `runCli`'s onSpawn for a Ctrl-C mid-answer: SIGINT once the first streamed `content` event is out (needs --stream-json). */
export function sigintAtFirstContent(child: ChildProcess): void {
  let buf = '';
  child.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    if (buf.includes('"type":"content"') && !child.killed) child.kill('SIGINT');
  });
}

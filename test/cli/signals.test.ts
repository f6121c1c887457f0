import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BIN, isolatedEnv } from '../helpers/cli-run.js';

const HELD = fileURLToPath(new URL('../helpers/held-exit-process.ts', import.meta.url));

/**
 * Whether process `pid` is reading its stdin: Node waits on fd 0 through its event loop's
 * epoll set, which /proc lists (`tfd: 0`) once the read has started and not before.
 */
function readingStdin(pid: number): boolean {
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`) !== 'anon_inode:[eventpoll]') continue;
      if (/^tfd:\s+0\s/m.test(readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8'))) return true;
    } catch {
      // an fd closed while we looked
    }
  }
  return false;
}

/**
 * With no prompt and a piped stdin the CLI reads stdin until EOF; we never
 * close it and signal the process instead. Nothing else handles the signal
 * there, so the CLI's own handler must turn it into exit 130.
 */
async function signalWhileWaiting(signal: NodeJS.Signals): Promise<{ code: number | null; stderr: string }> {
  const reader = spawn(process.execPath, [BIN], { env: isolatedEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  reader.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  reader.stdin.write('partial prompt without EOF');
  // the test's timeout bounds the wait; a CLI that exits instead fails below
  while (reader.exitCode === null && !readingStdin(reader.pid!)) await new Promise((r) => setTimeout(r, 10));
  expect(reader.exitCode).toBeNull(); // still waiting for the rest of the prompt
  reader.kill(signal);
  const code = await new Promise<number | null>((r) => reader.on('close', (c) => r(c)));
  return { code, stderr };
}

describe('signals', () => {
  it('SIGINT while waiting for piped input exits 130', async () => {
    const r = await signalWhileWaiting('SIGINT');
    expect(r.code).toBe(130);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
  it('SIGTERM exits 130', async () => {
    const r = await signalWhileWaiting('SIGTERM');
    expect(r.code).toBe(130);
  });
  it('a run that holds the exit finishes its clean-up past the 5 s a signal otherwise leaves it (the eval restoring the lab)', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', HELD, '5500'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    while (!out.includes('ready') && child.exitCode === null) await new Promise((r) => setTimeout(r, 20));
    const t0 = Date.now();
    child.kill('SIGINT');
    const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
    expect(out).toBe('ready\ncleaned\n');
    expect(code).toBe(130);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(5_500);
  }, 30_000);
});

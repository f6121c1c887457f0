/**
 * .ci/busy-run, the clean-clone CI with two busy loops alongside, run for real with a short
 * command in place of the CI (BUSY_RUN_CMD): each run happens in a fresh clone of HEAD while
 * both loops spin, the verdict is every run's, and the loops (and a run in progress) are
 * stopped by PID when the runs end, fail or the script is told to stop.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../agent/helpers.js';
import { until } from '../ui/helpers/scripted-session.js';

const SCRIPT = fileURLToPath(new URL('../../.ci/busy-run', import.meta.url));
const tmp = tempDir('gc-busy-run-');
afterAll(() => tmp.cleanup());

interface Run {
  pid: number;
  done: Promise<{ code: number | null; out: string }>;
  out: () => string;
}

function busyRun(args: string[], cmd: string, logs: string): Run {
  // the loops bound themselves too (a test that went wrong leaves no spinning process for long)
  // and yield to the tests that run beside this one
  const env = { ...process.env, BUSY_RUN_CMD: cmd, BUSY_RUN_LOGS: logs, BUSY_MAX_S: '120', RUN_MAX_S: '120', BUSY_NICE: '19' };
  const child = spawn('bash', [SCRIPT, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const done = new Promise<{ code: number | null; out: string }>((resolve) => child.on('close', (code) => resolve({ code, out })));
  return { pid: child.pid!, done, out: () => out };
}

const alive = (pid: number) => existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));

function loopPids(out: string): number[] {
  const m = /busy loops \(PIDs (\d+) (\d+)\)/.exec(out);
  expect(m, out).not.toBeNull();
  return [Number(m![1]), Number(m![2])];
}

describe('.ci/busy-run', () => {
  it('runs the command in a fresh clone of HEAD each time while both loops spin, then stops them', async () => {
    const logs = join(tmp.dir, 'pass');
    // in the clone: the repository's files, nothing uncommitted, both loops running
    const cmd =
      'test -f .ci/run && test -z "$(git status --porcelain)" && for p in $BUSY_RUN_PIDS; do test -d /proc/$p || exit 9; done; pwd';
    const { code, out } = await busyRun(['2'], cmd, logs).done;
    expect(out).toMatch(/run 1 passed/);
    expect(out).toMatch(/run 2 passed/);
    expect(out).toMatch(/all 2 run\(s\) passed/);
    expect(code).toBe(0);
    expect(readFileSync(join(logs, 'run-1.log'), 'utf8').trim()).toBe(join(logs, 'clone-1'));
    // a passing run's clone is removed
    expect(existsSync(join(logs, 'clone-1'))).toBe(false);
    for (const pid of loopPids(out)) expect(alive(pid)).toBe(false);
  }, 60_000);

  it('fails when one run fails, names it and keeps its clone', async () => {
    const logs = join(tmp.dir, 'fail');
    const { code, out } = await busyRun(['2'], 'case "$PWD" in */clone-1) exit 3;; esac; exit 0', logs).done;
    expect(out).toMatch(/run 1 FAILED \(exit 3\)/);
    expect(out).toMatch(/run 2 passed/);
    expect(out).toMatch(/1 of 2 run\(s\) failed/);
    expect(code).toBe(1);
    expect(existsSync(join(logs, 'clone-1', '.ci', 'run'))).toBe(true);
    for (const pid of loopPids(out)) expect(alive(pid)).toBe(false);
  }, 60_000);

  it('stopped while a run is in progress, it stops the run and both loops', async () => {
    const logs = join(tmp.dir, 'stopped');
    const marker = join(tmp.dir, 'run.pid');
    const run = busyRun(['1'], `echo $$ > ${marker}; exec sleep 300`, logs);
    await until(() => existsSync(marker) && readFileSync(marker, 'utf8').trim() !== '', 30_000, 'the run started');
    const runPid = Number(readFileSync(marker, 'utf8').trim());
    const loops = loopPids(run.out());
    expect(alive(runPid)).toBe(true);
    process.kill(run.pid, 'SIGTERM');
    const { code } = await run.done;
    expect(code).toBe(130);
    for (const pid of [runPid, ...loops]) expect(alive(pid)).toBe(false);
  }, 60_000);

  it('refuses a bad number of runs in one line, exit 2', async () => {
    const { code, out } = await busyRun(['0'], 'true', join(tmp.dir, 'bad')).done;
    expect(out.trim()).toBe("busy-run: RUNS must be a whole number ≥ 1 (got '0')");
    expect(code).toBe(2);
  });
});

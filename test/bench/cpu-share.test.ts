/**
 * The load bench reads its runs' CPU from /proc/self/stat once they are reaped
 * (bench/cpu-share.ts, childrenCpuMs): what a child says it used must show up
 * there, and the time it spends asleep must not.
 */
import { expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { childrenCpuMs } from '../../bench/cpu-share.js';

/** Runs `node -e code`; the child prints its own user + sys ms last (after its sleep), on exit. */
function runNode(code: string): Promise<number> {
  const report = "process.on('exit', () => { const u = process.cpuUsage(); process.stdout.write(String((u.user + u.system) / 1000)); });";
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', report + code], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(Number(out)) : reject(new Error(`exit ${code}`))));
  });
}

it("counts a reaped child's user + sys time, not the time it slept", async () => {
  const before = childrenCpuMs();
  // a fixed amount of work, then 400 ms asleep
  const own = await runNode('let x = 0; for (let i = 0; i < 3e8; i++) x ^= i; setTimeout(() => {}, 400);');
  const counted = childrenCpuMs() - before;
  expect(own).toBeGreaterThan(100);
  // clock ticks are 10 ms; the child's last few ms after its report are counted too
  expect(counted).toBeGreaterThanOrEqual(own - 20);
  expect(counted).toBeLessThanOrEqual(own + 40);
});

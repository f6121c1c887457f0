/**
 * CPU of one agent one-shot (user + sys of the process, /usr/bin/time): `-p … --estimate --json`
 * and a request answered by the fake LLM, against the fake controller, on the one-file bundle
 * from its code cache and on the code-split modules (GNS3_COPILOT_CODE_CACHE=off: the start-up
 * of every one-shot before the bundle), with `node -e 0` interleaved as the floor. Goal:
 * ≤ 350 ms per `--estimate` run, median of 20. Warm one-shots (GNS3_COPILOT_WARM=on) count the
 * client's CPU and what the warm process spent meanwhile (/proc: it is no child of ours). Then a
 * class command the same way: `check` of one project (a node check: the controller's answer
 * only), on the bundle and on the modules.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './table.js';
import { binaryEnv } from './ui.bench.js';
import { processCpuMs } from './cpu-share.js';
import { warmPids } from '../test/helpers/warm-pids.js';

const BIN = fileURLToPath(new URL('../bin/gns3-copilot.js', import.meta.url));
const TIME = '/usr/bin/time';
export const ONESHOT_CPU_GOAL_MS = 350;

type Variant = 'node -e 0' | 'bundle' | 'modules' | 'warm';

/** CPU ms of one process (`args` after node), exit 0 required. */
function cpuOf(args: string[], env: NodeJS.ProcessEnv, dir: string): Promise<number> {
  const out = join(dir, `time-${process.pid}`);
  return new Promise((resolve, reject) => {
    const child = spawn(TIME, ['-f', '%U %S', '-o', out, process.execPath, ...args], {
      env,
      cwd: dir,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${args.slice(1, 3).join(' ')} exited ${code}: ${stderr.trim().split('\n')[0] ?? ''}`));
      const [user, sys] = readFileSync(out, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
      resolve(Math.round((user! + sys!) * 1000));
    });
  });
}

export interface OneShotCpu {
  estimate: Record<Variant, number[]>;
  request: Record<Exclude<Variant, 'node -e 0'>, number[]>;
  check: Record<'bundle' | 'modules', number[]>;
}

/** `runs` interleaved rounds of every variant (one warm-up round first: it writes the caches). */
export async function oneShotCpu(runs: number): Promise<OneShotCpu> {
  if (!existsSync(TIME)) throw new Error(`${TIME} is missing: it measures the child's CPU (apt-get install time)`);
  const { startFakeGns3 } = await import('../test/fakes/gns3/server.js');
  const { startFakeLlm } = await import('../test/fakes/llm/server.js');
  const gns3 = await startFakeGns3({ api: 'v2' });
  gns3.addProject({ name: 'bench' });
  // a started node for `check` to read, in a project of its own (the one-shots' lab stays empty, as it was measured);
  // nothing listens on its console, and no check reaches it
  gns3.addProject({ name: 'class' });
  gns3.addNode({
    name: 'R1',
    node_type: 'qemu',
    console_host: '127.0.0.1',
    console: 9,
    console_type: 'telnet',
    status: 'started',
    project: 'class',
  });
  const llm = await startFakeLlm(
    Array.from({ length: 3 * (runs + 1) }, () => ({ text: 'ok' })),
    { title: 'bench' },
  );
  const dir = mkdtempSync(join(tmpdir(), `gcl-oneshot-cpu-${process.pid}-`));
  const result: OneShotCpu = {
    estimate: { 'node -e 0': [], bundle: [], modules: [], warm: [] },
    request: { bundle: [], modules: [], warm: [] },
    check: { bundle: [], modules: [] },
  };
  const checkFile = join(dir, 'lab.yaml');
  writeFileSync(checkFile, 'checks:\n  - node: {name: R1, status: started}\n');
  const check = [BIN, 'check', checkFile, '--server', gns3.url, '--project', 'class'];
  // every run from one directory and one runtime dir: one warm process serves the warm runs
  const runtime = mkdtempSync(join(tmpdir(), `gcl-oneshot-run-${process.pid}-`));
  const extra: Partial<Record<Variant, NodeJS.ProcessEnv>> = {
    modules: { GNS3_COPILOT_CODE_CACHE: 'off' },
    warm: { GNS3_COPILOT_WARM: 'on', XDG_RUNTIME_DIR: runtime },
  };
  const env = (variant: Variant) => binaryEnv(dir, llm.url, extra[variant] ?? {});
  const warmPid = (): number | undefined => warmPids(runtime)[0];
  // a warm run's CPU: its client's and the warm process's meanwhile (the first run starts it and runs in its own)
  const warmCpuOf = async (args: string[]) => {
    const pid = warmPid();
    const before = pid ? processCpuMs(pid) : 0;
    const client = await cpuOf(args, env('warm'), dir);
    return client + (pid ? processCpuMs(pid) - before : 0);
  };
  const oneShot = (i: number, estimate: boolean) => [
    BIN,
    '-p',
    `hello ${i}`,
    '--json',
    '--server',
    gns3.url,
    '--project',
    'bench',
    ...(estimate ? ['--estimate'] : []),
  ];
  try {
    for (let i = 0; i <= runs; i++) {
      const round = {
        node: await cpuOf(['-e', '0'], env('node -e 0'), dir),
        bundle: await cpuOf(oneShot(i, true), env('bundle'), dir),
        modules: await cpuOf(oneShot(i, true), env('modules'), dir),
        requestBundle: await cpuOf(oneShot(i, false), env('bundle'), dir),
        requestModules: await cpuOf(oneShot(i, false), env('modules'), dir),
        warm: await warmCpuOf(oneShot(i, true)),
        requestWarm: await warmCpuOf(oneShot(i, false)),
        checkBundle: await cpuOf(check, env('bundle'), dir),
        checkModules: await cpuOf(check, env('modules'), dir),
      };
      if (i === 0) continue;
      result.estimate['node -e 0'].push(round.node);
      result.estimate.bundle.push(round.bundle);
      result.estimate.modules.push(round.modules);
      result.request.bundle.push(round.requestBundle);
      result.request.modules.push(round.requestModules);
      result.estimate.warm.push(round.warm);
      result.request.warm.push(round.requestWarm);
      result.check.bundle.push(round.checkBundle);
      result.check.modules.push(round.checkModules);
    }
    if (!warmPid()) throw new Error('no warm process served the warm runs');
  } finally {
    const pid = warmPid();
    if (pid) process.kill(pid, 'SIGTERM');
    await llm.close();
    await gns3.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(runtime, { recursive: true, force: true });
  }
  return result;
}

/** Rows for a table with columns case | median | min | vs node -e 0. */
export function oneShotCpuRows(r: OneShotCpu): string[][] {
  const base = median(r.estimate['node -e 0']);
  const row = (name: string, xs: number[]) => [
    name,
    `${median(xs)} ms CPU`,
    `${Math.min(...xs)} ms CPU`,
    `${(median(xs) / base).toFixed(2)}x`,
  ];
  const n = r.estimate.bundle.length;
  return [
    row(`CPU: node -e 0 (${n} runs)`, r.estimate['node -e 0']),
    row('CPU: one-shot --estimate, bundle + code cache', r.estimate.bundle),
    row('CPU: one-shot --estimate, modules (GNS3_COPILOT_CODE_CACHE=off)', r.estimate.modules),
    row('CPU: one-shot request, bundle + code cache', r.request.bundle),
    row('CPU: one-shot request, modules (GNS3_COPILOT_CODE_CACHE=off)', r.request.modules),
    row('CPU: one-shot --estimate, warm (GNS3_COPILOT_WARM=on: client + warm process)', r.estimate.warm),
    row('CPU: one-shot request, warm (GNS3_COPILOT_WARM=on: client + warm process)', r.request.warm),
    row('CPU: check of one project, bundle + code cache', r.check.bundle),
    row('CPU: check of one project, modules (GNS3_COPILOT_CODE_CACHE=off)', r.check.modules),
  ];
}

/**
 * The lab checker (src/check): 50 checks over 20 real FRR routers (a chain) against
 * the slowest single device running the same distinct commands alone. The checker
 * runs every device in parallel and each distinct command once per device, so the
 * goal is ≤ 1.5× the slowest device. Warm = sessions already open in the pool;
 * cold = connecting included. Needs root + frr (test/lab).
 */
import { performance } from 'node:perf_hooks';
import type { BenchTable } from './table.js';
import { fmtMs, median } from './table.js';
import { startLab } from '../test/lab/lab.js';
import { scopeOf, settingsWith } from '../test/devices/helpers.js';
import { runChecks } from '../src/check/run.js';
import { parseCheckText } from '../src/check/load.js';
import { planCheck } from '../src/check/plan.js';
import { DevicePool } from '../src/devices/pool.js';
import { runDeviceJobs } from '../src/devices/engine.js';
import { resolveTarget } from '../src/devices/target.js';

const ROUTERS = Array.from({ length: 20 }, (_, i) => `r${i + 1}`);
const RUNS = 5;

/** 50 checks: per router an interface and a connected route, plus a config check on r1–r5 and a command check on r6–r10. */
function checkFile(): string {
  const lines: string[] = ['checks:'];
  ROUTERS.forEach((r, i) => {
    lines.push(`  - interface: {device: ${r}, name: lo, state: up, ip: 10.255.255.${i + 1}/32}`);
    lines.push(`  - route: {device: ${r}, prefix: 10.255.255.${i + 1}/32, protocol: connected}`);
    if (i < 5) lines.push(`  - config: {device: ${r}, has: "hostname ${r}"}`);
    else if (i < 10) lines.push(`  - command: {device: ${r}, run: "show version", expect: {contains: "FRRouting"}}`);
  });
  return lines.join('\n') + '\n';
}

export async function run(): Promise<BenchTable> {
  const links = ROUTERS.slice(1).map((r, i) => [ROUTERS[i]!, r] as [string, string]);
  const lab = await startLab({ routers: ROUTERS, links });
  const settings = settingsWith({ device_concurrency: 32 });
  const scope = scopeOf(lab.topology('bench'));
  const { checks } = parseCheckText(checkFile(), 'bench');
  try {
    const cold = new DevicePool({ openTimeoutMs: 5_000, commandTimeoutMs: 10_000, confirmAllow: [] });
    const t0 = performance.now();
    const first = await runChecks(checks, { project: scope, settings, pool: cold });
    const coldMs = performance.now() - t0;
    cold.closeAll();
    if (first.passed !== checks.length)
      throw new Error(`bench checks did not pass: ${JSON.stringify(first.checks.filter((c) => c.status !== 'pass'))}`);

    const pool = new DevicePool({ openTimeoutMs: 5_000, commandTimeoutMs: 10_000, confirmAllow: [] });
    await runChecks(checks, { project: scope, settings, pool });
    const warm: number[] = [];
    for (let k = 0; k < RUNS; k++) {
      const t = performance.now();
      await runChecks(checks, { project: scope, settings, pool });
      warm.push(performance.now() - t);
    }
    // The same distinct commands, one device at a time: the slowest device bounds any parallel run.
    const topology = lab.topology('bench');
    const perDevice: number[] = [];
    const jobs = [];
    for (const r of ROUTERS) {
      const cmds = new Set<string>();
      for (const c of checks.filter(
        (x) =>
          ('interface' in x
            ? x.interface.device
            : 'route' in x
              ? x.route.device
              : 'config' in x
                ? x.config.device
                : 'command' in x
                  ? x.command.device
                  : '') === r,
      )) {
        const plan = planCheck(c, 'frr');
        if (!('error' in plan)) plan.commands.forEach((x) => cmds.add(x));
      }
      const job = { device_name: r, resolved: resolveTarget(topology, r, settings), commands: [...cmds] };
      jobs.push(job);
      const xs: number[] = [];
      for (let k = 0; k < RUNS; k++) {
        const t = performance.now();
        await runDeviceJobs([job], { mode: 'read', settings, pool });
        xs.push(performance.now() - t);
      }
      perDevice.push(median(xs));
    }
    // The engine alone with the same jobs, all devices at once: what the devices and 2 cores allow.
    const engine: number[] = [];
    for (let k = 0; k < RUNS; k++) {
      const t = performance.now();
      await runDeviceJobs(jobs, { mode: 'read', settings, pool });
      engine.push(performance.now() - t);
    }
    pool.closeAll();
    const slowest = Math.max(...perDevice);
    const warmMs = median(warm);
    return {
      title: 'check: 50 checks over 20 FRR routers',
      columns: ['case', 'time', 'vs slowest device'],
      rows: [
        ['slowest single device, its distinct commands alone (warm)', fmtMs(slowest), '1.00×'],
        [
          'sum of all devices one after another (warm)',
          fmtMs(perDevice.reduce((a, b) => a + b, 0)),
          `${(perDevice.reduce((a, b) => a + b, 0) / slowest).toFixed(2)}×`,
        ],
        [
          'the same jobs through the engine alone, all devices at once (warm)',
          fmtMs(median(engine)),
          `${(median(engine) / slowest).toFixed(2)}×`,
        ],
        ['50 checks, all devices in parallel (warm, median of 5)', fmtMs(warmMs), `${(warmMs / slowest).toFixed(2)}×`],
        ['50 checks, cold (20 console connects included)', fmtMs(coldMs), `${(coldMs / slowest).toFixed(2)}×`],
      ],
      notes: [
        `goal: warm ≤ 1.5× the slowest device; ${checks.length} checks, ${ROUTERS.length} routers`,
        'the checker adds ~2 ms over the engine alone; the rest is 20 vtysh consoles sharing the CPU cores with the checker',
      ],
    };
  } finally {
    await lab.stop();
  }
}

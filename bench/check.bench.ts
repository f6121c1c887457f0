/**
 * The lab checker (src/check): 50 checks over 20 real FRR routers (a chain) against
 * the slowest single device running the same distinct commands alone. The checker
 * runs every device in parallel and each distinct command once per device, so the
 * goal is ≤ 1.5× the slowest device. Warm = sessions already open in the pool;
 * cold = connecting included. Measured over the local consoles (CPU-bound on a 2-core
 * machine) and behind consoles LATENCY_MS away, as a GNS3 server's are. Needs root + frr (test/lab).
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
import type { Topology } from '../src/gns3/types.js';
import type { Check } from '../src/check/schema.js';
import { behindLatency } from './console-latency.js';
import { cpuShare, type CpuShare } from './cpu-share.js';

const ROUTERS = Array.from({ length: 20 }, (_, i) => `r${i + 1}`);
const RUNS = 5;
const LATENCY_MS = 10;

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

interface Measured {
  /** the slowest device running its distinct commands alone (warm, median of RUNS) */
  slowest: number;
  perDeviceSum: number;
  /** the same jobs through the engine alone, all devices at once */
  engine: number;
  /** the 50 checks, warm and cold */
  warm: number;
  cold: number;
  /** CPU per warm 50-check run: the checker against the rest of the machine */
  cpu: CpuShare;
}

async function measure(topology: Topology, checks: Check[]): Promise<Measured> {
  const settings = settingsWith({ device_concurrency: 32 });
  const scope = scopeOf(topology);
  const cold = new DevicePool({ openTimeoutMs: 5_000, commandTimeoutMs: 10_000, confirmAllow: [] });
  const t0 = performance.now();
  const first = await runChecks(checks, { project: scope, settings, pool: cold });
  const coldMs = performance.now() - t0;
  cold.closeAll();
  if (first.passed !== checks.length)
    throw new Error(`bench checks did not pass: ${JSON.stringify(first.checks.filter((c) => c.status !== 'pass'))}`);

  const pool = new DevicePool({ openTimeoutMs: 5_000, commandTimeoutMs: 10_000, confirmAllow: [] });
  try {
    await runChecks(checks, { project: scope, settings, pool });
    const warm: number[] = [];
    for (let k = 0; k < RUNS; k++) {
      const t = performance.now();
      await runChecks(checks, { project: scope, settings, pool });
      warm.push(performance.now() - t);
    }
    // The same distinct commands, one device at a time: the slowest device bounds any parallel run.
    const perDevice: number[] = [];
    const jobs = [];
    for (const r of ROUTERS) {
      const cmds = new Set<string>();
      for (const c of checks.filter((x) => deviceOf(x) === r)) {
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
    const engine: number[] = [];
    for (let k = 0; k < RUNS; k++) {
      const t = performance.now();
      await runDeviceJobs(jobs, { mode: 'read', settings, pool });
      engine.push(performance.now() - t);
    }
    const cpu = await cpuShare(() => runChecks(checks, { project: scope, settings, pool }), RUNS);
    return {
      cpu,
      slowest: Math.max(...perDevice),
      perDeviceSum: perDevice.reduce((a, b) => a + b, 0),
      engine: median(engine),
      warm: median(warm),
      cold: coldMs,
    };
  } finally {
    pool.closeAll();
  }
}

function deviceOf(c: Check): string {
  return 'interface' in c
    ? c.interface.device
    : 'route' in c
      ? c.route.device
      : 'config' in c
        ? c.config.device
        : 'command' in c
          ? c.command.device
          : '';
}

function rows(m: Measured, where: string): string[][] {
  const x = (v: number) => `${(v / m.slowest).toFixed(2)}×`;
  return [
    [`${where}: slowest single device, its distinct commands alone (warm)`, fmtMs(m.slowest), '1.00×'],
    [`${where}: sum of all devices one after another (warm)`, fmtMs(m.perDeviceSum), x(m.perDeviceSum)],
    [`${where}: the same jobs through the engine alone, all at once (warm)`, fmtMs(m.engine), x(m.engine)],
    [`${where}: 50 checks, all devices in parallel (warm, median of ${RUNS})`, fmtMs(m.warm), x(m.warm)],
    [`${where}: 50 checks, cold (20 console connects included)`, fmtMs(m.cold), x(m.cold)],
    [`${where}: CPU per warm run, the checker (this process)`, fmtMs(m.cpu.own), ''],
    [`${where}: CPU per warm run, rest of the machine (routers, consoles, kernel)`, fmtMs(m.cpu.rest), ''],
  ];
}

export async function run(): Promise<BenchTable> {
  const links = ROUTERS.slice(1).map((r, i) => [ROUTERS[i]!, r] as [string, string]);
  const lab = await startLab({ routers: ROUTERS, links });
  const far = await behindLatency(lab.topology('bench'), LATENCY_MS);
  const { checks } = parseCheckText(checkFile(), 'bench');
  try {
    const local = await measure(lab.topology('bench'), checks);
    const remote = await measure(far.topology, checks);
    return {
      title: 'check: 50 checks over 20 FRR routers',
      columns: ['case', 'time', 'vs slowest device'],
      rows: [...rows(local, 'local consoles'), ...rows(remote, `consoles ${LATENCY_MS} ms away`)],
      notes: [
        `goal: warm ≤ 1.5× the slowest device; ${checks.length} checks, ${ROUTERS.length} routers`,
        'local consoles: 20 vtysh processes share the 2 cores with the checker, so a parallel run is CPU-bound;',
        `consoles ${LATENCY_MS} ms away (bench/console-latency.ts) are how a GNS3 server's devices look from the copilot`,
      ],
    };
  } finally {
    await far.close();
    await lab.stop();
  }
}

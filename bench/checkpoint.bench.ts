/**
 * Checkpoints, all in one run:
 *
 * - capture (`show running-config`) of 1 vs 20 real FRR routers (test/lab) through
 *   captureDevices with warm pooled consoles, median of 10. Target: 20 <= 1.5x one.
 * - `checkpoint save` and `checkpoint restore --yes` of 1 vs 20 routers on the commands' own
 *   path (./checkpoint-commands.ts), median of 5.
 * - the unified diff and the hierarchical restore plan of two 10,000-line
 *   configurations (500 interfaces changed), median of 20. Target: <= 50 ms each.
 *
 * The 20 local routers share this machine's cores, so their capture is CPU-bound; the
 * same capture behind consoles LATENCY_MS away (bench/console-latency.ts), as a GNS3
 * server's are, shows the parallelism itself.
 *
 * The capture rows need root and the lab packages (frr, socat).
 */
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { settingsSchema } from '../src/config/schema.js';
import { captureDevices } from '../src/checkpoints/capture.js';
import { restorePlan } from '../src/checkpoints/hier-diff.js';
import { unifiedDiff } from '../src/checkpoints/unified-diff.js';
import { POOL_SERVICE_KEY, type DevicePool } from '../src/devices/pool.js';
import { nullLogger } from '../src/log.js';
import type { ProjectScope, Topology } from '../src/gns3/types.js';
import { startLab } from '../test/lab/lab.js';
import { fmtMs, median, type BenchTable } from './table.js';
import { behindLatency } from './console-latency.js';
import { cpuShare, type CpuShare } from './cpu-share.js';
import { saveRestoreTimes, type SaveRestoreTimes } from './checkpoint-commands.js';

const ROUTERS = Array.from({ length: 20 }, (_, i) => `r${i + 1}`);
const LATENCY_MS = 10;
const COMMAND_RUNS = 5;

async function timed(fn: () => Promise<unknown>, n: number): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    xs.push(performance.now() - t);
  }
  return median(xs);
}

/** 2,500 interfaces of 4 lines: 10,000 lines; `changed` of them get another cost and a new line. */
function bigConfig(changed: number): string {
  const lines: string[] = ['hostname core'];
  for (let i = 0; i < 2_500; i++) {
    lines.push(`interface eth${i}`, ` ip address 10.${i >> 8}.${i & 255}.1/24`, ` ip ospf cost ${i < changed ? 99 : 10}`, 'exit');
    if (i < changed) lines.push(' ip ospf passive');
  }
  return lines.join('\n');
}

/** `checkpoint save` and `restore --yes`: 1 router, 20 routers and their ratio */
function commandRows(t: SaveRestoreTimes, where: string): string[][] {
  const x = (all: number, one: number) => `${fmtMs(all)} (${(all / one).toFixed(2)}x one)`;
  return [
    [`checkpoint save, 1 router, ${where}`, fmtMs(t.saveOne), '', ''],
    [`checkpoint save, 20 routers, ${where}`, x(t.saveAll, t.saveOne), '', ''],
    [`checkpoint restore --yes, 1 router changed, ${where}`, fmtMs(t.restoreOne), '', ''],
    [`checkpoint restore --yes, 20 routers changed, ${where}`, x(t.restoreAll, t.restoreOne), '', ''],
  ];
}

export async function run(): Promise<BenchTable> {
  const a = bigConfig(0);
  const b = bigConfig(500);
  const diffMs = await timed(async () => unifiedDiff(a, b, { from: 'a', to: 'b' }), 20);
  const planMs = await timed(async () => restorePlan(a, b), 20);

  const lab = await startLab({ routers: ROUTERS, links: [] });
  const far = await behindLatency(lab.topology(), LATENCY_MS);
  const pools: Map<string, unknown>[] = [];
  /** capture of 1 and of all 20 routers (warm, median of 10) over these consoles */
  const oneAndTwenty = async (topology: Topology): Promise<[number, number, CpuShare, number]> => {
    const services = new Map<string, unknown>();
    pools.push(services);
    const scope: ProjectScope = {
      projectId: topology.project_id,
      projectName: topology.project_name,
      getTopology: () => Promise.resolve(topology),
      capture: () => Promise.reject(new Error('no capture')),
    };
    const ctx = {
      settings: settingsSchema.parse({}),
      signal: new AbortController().signal,
      log: nullLogger,
      project: () => Promise.resolve(scope),
      services,
    };
    await captureDevices(ROUTERS, ctx); // warm: consoles open
    return [
      await timed(() => captureDevices(['r1'], ctx), 10),
      await timed(() => captureDevices(ROUTERS, ctx), 10),
      await cpuShare(() => captureDevices(ROUTERS, ctx), 20),
      // the same 20 captures one after another: what the parallel capture saves
      await timed(async () => {
        for (const r of ROUTERS) await captureDevices([r], ctx);
      }, 3),
    ];
  };
  try {
    const [one, twenty, cpu, serial] = await oneAndTwenty(lab.topology());
    const [farOne, farTwenty, , farSerial] = await oneAndTwenty(far.topology);
    const ratio = twenty / one;
    const farRatio = farTwenty / farOne;
    const near = await saveRestoreTimes(lab, ROUTERS, lab.topology(), COMMAND_RUNS);
    const away = await saveRestoreTimes(lab, ROUTERS, far.topology, COMMAND_RUNS);
    return {
      title: 'Checkpoints (real FRR 8.4 consoles; diff of two 10,000-line configurations)',
      columns: ['measurement', 'value', 'target', 'met'],
      rows: [
        ['capture show running-config, 1 router (warm)', fmtMs(one), '', ''],
        ['capture show running-config, 20 routers (warm)', fmtMs(twenty), '', ''],
        ['capture, 20 routers one after another (warm)', `${fmtMs(serial)} (${(serial / one).toFixed(2)}x)`, '', ''],
        [
          '20 routers / 1 router, local consoles (CPU-bound on this machine)',
          `${ratio.toFixed(2)}x`,
          '<= 1.5x',
          ratio <= 1.5 ? 'yes' : 'NO',
        ],
        ['CPU per 20-router capture: the copilot (this process)', fmtMs(cpu.own), '', ''],
        [
          'CPU per 20-router capture: rest of the machine (routers, consoles, kernel)',
          `${fmtMs(cpu.rest)} (>= ${fmtMs(cpu.rest / availableParallelism())} of wall time on ${availableParallelism()} cores)`,
          '',
          '',
        ],
        [`capture, 1 router, consoles ${LATENCY_MS} ms away (warm)`, fmtMs(farOne), '', ''],
        [`capture, 20 routers, consoles ${LATENCY_MS} ms away (warm)`, fmtMs(farTwenty), '', ''],
        [
          `capture, 20 routers one after another, consoles ${LATENCY_MS} ms away (warm)`,
          `${fmtMs(farSerial)} (${(farSerial / farOne).toFixed(2)}x)`,
          '',
          '',
        ],
        [`20 routers / 1 router, consoles ${LATENCY_MS} ms away`, `${farRatio.toFixed(2)}x`, '<= 1.5x', farRatio <= 1.5 ? 'yes' : 'NO'],
        [
          // the routers run on this machine, not on a GNS3 server: their own CPU is on the same cores
          `floor the 20 routers' own CPU sets there: (1 router + their CPU / ${availableParallelism()} cores) / 1 router`,
          `${((farOne + cpu.rest / availableParallelism()) / farOne).toFixed(2)}x`,
          '',
          '',
        ],
        ...commandRows(near, 'local consoles'),
        ...commandRows(away, `consoles ${LATENCY_MS} ms away`),
        ['unified diff, 10,000 vs 10,500 lines', fmtMs(diffMs), '<= 50 ms', diffMs <= 50 ? 'yes' : 'NO'],
        ['hierarchical restore plan, same texts', fmtMs(planMs), '<= 50 ms', planMs <= 50 ? 'yes' : 'NO'],
      ],
      notes: [
        // why one router's restore takes a second: the lab is looked at after the change, not assumed
        'a restore reads each restored router back after its change until two reads 1 s apart agree ' +
          '(the change verification, src/tools/changeset/verify.ts), then captures it again: one router is >= 1 s',
      ],
    };
  } finally {
    for (const services of pools) (services.get(POOL_SERVICE_KEY) as DevicePool | undefined)?.closeAll();
    await far.close();
    await lab.stop();
  }
}

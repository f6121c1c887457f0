/**
 * Change sets on real FRR routers (test/lab, needs root + frr): the apply of one template to
 * 20 routers (a chain) against the slowest single router's apply of its own lines, and the
 * reads a verification costs — the baseline before the change and the re-reads after it until
 * two agree, with no wait between them (the settle is excluded: it waits on the routing
 * protocols, not on the copilot). Over the local consoles, with the copilot's CPU share
 * (bench/cpu-share.ts), and behind consoles LATENCY_MS away (bench/console-latency.ts).
 */
import { performance } from 'node:perf_hooks';
import { settingsSchema, type Settings } from '../src/config/schema.js';
import { nullLogger } from '../src/log.js';
import { POOL_SERVICE_KEY, type DevicePool } from '../src/devices/pool.js';
import type { Topology } from '../src/gns3/types.js';
import { applyConfigTemplate } from '../src/tools/changeset/apply-template.js';
import { prepareChangeSet, type RenderedSet } from '../src/tools/changeset/prepare.js';
import { takeBaseline, verifyChange } from '../src/tools/changeset/verify.js';
import { keepRead, readBeforeChange } from '../src/tools/changeset/pre-change-read.js';
import { captureDevices } from '../src/checkpoints/capture.js';
import type { ToolContext } from '../src/tools/types.js';
import { startLab } from '../test/lab/lab.js';
import { scopeOf } from '../test/devices/helpers.js';
import { behindLatency } from './console-latency.js';
import { cpuShare, type CpuShare } from './cpu-share.js';
import { fmtMs, median } from './table.js';

const N = 20;
const ROUTERS = Array.from({ length: N }, (_, i) => `r${i + 1}`);
const RUNS = 3;
const LATENCY_MS = 10;

/** OSPF from facts as the token rows count it; 10 s hellos keep 20 idle routers' own CPU low between runs. */
const TEMPLATE = `router ospf
 ospf router-id 10.255.255.{{ device.index }}
{% for i in device.interfaces %}{% if i.network != "" %} network {{ i.network }} area 0
{% endif %}{% endfor %}exit
{% for i in device.interfaces %}{% if i.name != "lo" and i.prefix_length == 24 %}interface {{ i.name }}
 ip ospf network point-to-point
exit
{% endif %}{% endfor %}`;

function contextFor(topology: Topology, settings: Settings): ToolContext {
  return {
    settings,
    signal: new AbortController().signal,
    log: nullLogger,
    project: () => Promise.resolve(scopeOf(topology)),
    services: new Map(),
  };
}

async function timed(fn: () => Promise<unknown>, n: number): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    xs.push(performance.now() - t);
  }
  return median(xs);
}

/** Applies the rendered set (the approval already given) and fails the bench when a device did not take it. */
async function apply(set: RenderedSet, ctx: ToolContext): Promise<void> {
  const args = { template: TEMPLATE, devices: set.devices.map((d) => d.device_name), verify: 'none' as const, rendered: set };
  const out = await applyConfigTemplate.run(args, ctx);
  if (out.status !== 'success') throw new Error(`bench apply did not succeed: ${JSON.stringify(out.data).slice(0, 400)}`);
}

export interface ApplyFigures {
  /** the slowest router applying its own lines alone (warm, median of RUNS) */
  slowest: number;
  /** the 20-router set at max_parallel_tools 20 and at the default 5 */
  set20: number;
  setDefault: number;
  /** baseline + verification reads of the 20 routers, settle excluded */
  verifyReads: number;
  /** the reads before the apply: the preview's configuration and the baseline in one console round per router */
  preRead: number;
  /** the same reads as two rounds per router (the configuration, then the baseline) */
  preReadTwoRounds: number;
  cpuApply?: CpuShare;
  cpuVerify?: CpuShare;
}

async function measure(topology: Topology, withCpu: boolean): Promise<ApplyFigures> {
  const wide = settingsSchema.parse({ max_parallel_tools: 20, device_concurrency: 32, command_timeout_ms: 20_000 });
  const ctx = contextFor(topology, wide);
  const narrow = { ...ctx, settings: { ...wide, max_parallel_tools: settingsSchema.parse({}).max_parallel_tools } };
  try {
    const prepared = await prepareChangeSet({ template: TEMPLATE, devices: ['r*'] }, ctx);
    if ('error' in prepared) throw new Error(`bench template did not render: ${JSON.stringify(prepared.error.data)}`);
    const set = prepared.set;
    await apply(set, ctx); // warm: consoles open, the configuration in place (a re-apply is the same work each run)
    const perDevice: number[] = [];
    for (const d of set.devices) perDevice.push(await timed(() => apply({ ...set, devices: [d], pilot: [] }, ctx), RUNS));
    const set20 = await timed(() => apply(set, ctx), RUNS);
    const setDefault = await timed(() => apply(set, narrow), RUNS);
    const reads = async () => {
      const base = await takeBaseline(ROUTERS, ctx);
      // the settle is excluded: the re-applied configuration moves nothing, so the reads end at the second
      const v = await verifyChange(base, new Map(), ctx, { timeoutMs: 60_000, quietMs: 0, pollMs: 0 });
      if (v.status === 'error') throw new Error(`bench verification could not decide: ${v.reason ?? ''}`);
    };
    await reads();
    const verifyReads = await timed(reads, RUNS);
    // what a verified change reads between the call and the apply: one round per router, taken by the run's baseline
    const preRead = await timed(async () => {
      keepRead(ctx.services, 'bench', await readBeforeChange(ROUTERS, topology, { config: true, baseline: true }, ctx));
      await takeBaseline(ROUTERS, { ...ctx, callId: 'bench' });
    }, RUNS);
    const preReadTwoRounds = await timed(async () => {
      await captureDevices(ROUTERS, ctx);
      await takeBaseline(ROUTERS, ctx);
    }, RUNS);
    const figures: ApplyFigures = { slowest: Math.max(...perDevice), set20, setDefault, verifyReads, preRead, preReadTwoRounds };
    if (withCpu) {
      figures.cpuApply = await cpuShare(() => apply(set, ctx), RUNS);
      figures.cpuVerify = await cpuShare(reads, RUNS);
    }
    return figures;
  } finally {
    (ctx.services.get(POOL_SERVICE_KEY) as DevicePool | undefined)?.closeAll();
  }
}

export function applyRows(f: ApplyFigures, where: string): string[][] {
  const ratio = f.set20 / f.slowest;
  const rows = [
    [`${where}: slowest single router's apply of its lines (warm, median of ${RUNS})`, fmtMs(f.slowest), ''],
    [
      `${where}: 20-router change set, max_parallel_tools 20`,
      `${fmtMs(f.set20)} (${ratio.toFixed(2)}×)`,
      `≤ 1.5× ${ratio <= 1.5 ? '✓' : '✗'}`,
    ],
    [
      `${where}: 20-router change set, max_parallel_tools 5 (default)`,
      `${fmtMs(f.setDefault)} (${(f.setDefault / f.slowest).toFixed(2)}×)`,
      '',
    ],
    [
      `${where}: baseline + verification reads of 20 routers (settle excluded)`,
      fmtMs(f.verifyReads),
      `≤ 2 s ${f.verifyReads <= 2000 ? '✓' : '✗'}`,
    ],
    [`${where}: preview + baseline reads of 20 routers before the apply, one console round per router`, fmtMs(f.preRead), ''],
    [`${where}: the same reads as two rounds per router (configuration, then baseline)`, fmtMs(f.preReadTwoRounds), ''],
  ];
  if (f.cpuApply && f.cpuVerify)
    rows.push(
      [`${where}: CPU per 20-router apply: the copilot / rest of the machine`, `${fmtMs(f.cpuApply.own)} / ${fmtMs(f.cpuApply.rest)}`, ''],
      [`${where}: CPU per baseline + verification: the copilot / rest`, `${fmtMs(f.cpuVerify.own)} / ${fmtMs(f.cpuVerify.rest)}`, ''],
    );
  return rows;
}

/** (b) behind consoles LATENCY_MS away, (c) the local lab with the CPU share. */
export async function measureApply(): Promise<{ rows: string[][]; notes: string[] }> {
  const lab = await startLab({ routers: ROUTERS, links: ROUTERS.slice(1).map((r, i) => [ROUTERS[i]!, r] as [string, string]) });
  const far = await behindLatency(lab.topology('bench'), LATENCY_MS);
  try {
    const remote = await measure(far.topology, false);
    const local = await measure(lab.topology('bench'), true);
    return {
      rows: [...applyRows(remote, `consoles ${LATENCY_MS} ms away`), ...applyRows(local, 'local FRR lab')],
      notes: [
        `apply: the OSPF template rendered for each of ${N} chained FRR routers, through apply_config_template (verify none), re-applied each run`,
        'the verification reads are takeBaseline (devices and their linked routers) and verifyChange re-reading until two reads agree, no wait between reads',
        'the reads before the apply: readBeforeChange (running-config + state commands back to back) taken by takeBaseline, against captureDevices then takeBaseline',
        'local FRR lab: 20 vtysh consoles share the 2 cores with the copilot, so a parallel run there is CPU-bound',
      ],
    };
  } finally {
    await far.close();
    await lab.stop();
  }
}

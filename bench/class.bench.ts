/**
 * `check FILE --projects GLOB` for a class: 30 projects × 10 checks, each project's "R1" one of
 * 30 real FRR routers behind consoles LATENCY_MS away (as a GNS3 server's are), graded by the
 * class runner (src/check/class-run.ts, --jobs 8 and 30) against one project's check alone.
 * Goal: the class ≤ 3× one project. Cold = console connects included (a `check` process);
 * warm = sessions kept (a `--watch` round). Then as commands, one project against the class: the
 * built CLI against a fake controller holding it, `check`, `checkpoint save` and `checkpoint
 * restore --yes` (./class-commands.ts). Needs root + frr (test/lab) and dist/.
 */
import { performance } from 'node:perf_hooks';
import type { BenchTable } from './table.js';
import { fmtMs, median } from './table.js';
import { startLab } from '../test/lab/lab.js';
import { scopeOf, settingsWith } from '../test/devices/helpers.js';
import { runChecks, type CheckReport } from '../src/check/run.js';
import { parseCheckText } from '../src/check/load.js';
import { defaultName, kindOf, type Check } from '../src/check/schema.js';
import { gradeClass } from '../src/check/class-run.js';
import { DevicePool } from '../src/devices/pool.js';
import type { ProjectScope, Topology } from '../src/gns3/types.js';
import { behindLatency } from './console-latency.js';
import { classCommandTimes, type OneAndAll } from './class-commands.js';

const PROJECTS = 30;
const ROUTERS = Array.from({ length: PROJECTS }, (_, i) => `r${i + 1}`);
const RUNS = 3;
const LATENCY_MS = 10;

/** Ten checks every student's R1 passes, over eight distinct commands. */
const CHECKS = `checks:
  - node: {name: R1, status: started}
  - interface: {device: R1, name: lo, state: up}
  - interface: {device: R1, name: eth0, state: up}
  - route: {device: R1, prefix: 10.99.0.0/16, present: false}
  - config: {device: R1, lacks: "router bgp"}
  - command: {device: R1, run: "show version", expect: {contains: "FRRouting"}}
  - command: {device: R1, run: "show interface lo", expect: {contains: "10.255.255."}}
  - command: {device: R1, run: "show ip forwarding", expect: {contains: "on"}}
  - command: {device: R1, run: "show ip route connected", expect: {contains: "directly connected"}}
  - command: {device: R1, run: "show ip route", expect: {contains: "C>*"}}
`;

const newPool = () => new DevicePool({ openTimeoutMs: 10_000, commandTimeoutMs: 20_000, confirmAllow: [] });

/** Student i's project: one node "R1", the console of router i. */
function studentScope(t: Topology, i: number): ProjectScope {
  const node = t.nodes.find((n) => n.name === ROUTERS[i])!;
  return scopeOf({ ...t, project_id: `p${i}`, project_name: `student-${i + 1}`, nodes: [{ ...node, name: 'R1' }], links: [] });
}

function mustPass(r: CheckReport): void {
  if (r.passed !== r.checks.length)
    throw new Error(`bench checks did not pass in ${r.project}: ${JSON.stringify(r.checks.filter((c) => c.status !== 'pass'))}`);
}

interface Timing {
  cold: number;
  warm: number;
}

/** A class run's timing and how long one project's grading took inside it (median row, warm rounds). */
interface ClassTiming extends Timing {
  perProjectWarm: number;
}

/** One project's check, cold (a fresh pool each run) and warm (one pool), medians of RUNS. */
async function oneProject(scope: ProjectScope, checks: Check[]): Promise<Timing> {
  const settings = settingsWith();
  const cold: number[] = [];
  for (let k = 0; k < RUNS; k++) {
    const pool = newPool();
    const t = performance.now();
    mustPass(await runChecks(checks, { project: scope, settings, pool }));
    cold.push(performance.now() - t);
    pool.closeAll();
  }
  const pool = newPool();
  const warm: number[] = [];
  try {
    await runChecks(checks, { project: scope, settings, pool });
    for (let k = 0; k < RUNS; k++) {
      const t = performance.now();
      await runChecks(checks, { project: scope, settings, pool });
      warm.push(performance.now() - t);
    }
  } finally {
    pool.closeAll();
  }
  return { cold: median(cold), warm: median(warm) };
}

/** The class graded by gradeClass at `jobs`, cold and warm, medians of RUNS. */
async function wholeClass(scopes: ProjectScope[], checks: Check[], jobs: number): Promise<ClassTiming> {
  const settings = settingsWith();
  const described = checks.map((c) => ({ name: c.name ?? defaultName(c), kind: kindOf(c), points: c.points }));
  const projects = scopes.map((s) => s.projectName);
  const byName = new Map(scopes.map((s) => [s.projectName, s]));
  const rowsWarm: number[] = [];
  const round = async (pools: Map<string, DevicePool>, rows?: number[]) => {
    const t = performance.now();
    const r = await gradeClass({
      projects,
      jobs,
      checks: described,
      grade: (p) => runChecks(checks, { project: byName.get(p)!, settings, pool: pools.get(p)! }),
    });
    const ms = performance.now() - t;
    r.projects.forEach(mustPass);
    rows?.push(...r.projects.map((p) => p.duration_ms));
    return ms;
  };
  const fresh = () => new Map(projects.map((p) => [p, newPool()]));
  const close = (m: Map<string, DevicePool>) => m.forEach((p) => p.closeAll());
  const cold: number[] = [];
  for (let k = 0; k < RUNS; k++) {
    const pools = fresh();
    cold.push(await round(pools));
    close(pools);
  }
  const pools = fresh();
  const warm: number[] = [];
  try {
    await round(pools);
    for (let k = 0; k < RUNS; k++) warm.push(await round(pools, rowsWarm));
  } finally {
    close(pools);
  }
  return { cold: median(cold), warm: median(warm), perProjectWarm: median(rowsWarm) };
}

/** A command as the built CLI runs it (a process): one project, then the class at the default --jobs 8. */
function commandRows(command: string, t: OneAndAll): string[][] {
  return [
    [`command: \`${command} --project student-01\``, fmtMs(t.one), '1.00×'],
    [`command: \`${command} --projects 'student-*'\` (--jobs 8)`, fmtMs(t.all), `${(t.all / t.one).toFixed(2)}×`],
  ];
}

export async function run(): Promise<BenchTable> {
  // pairs r1-r2, r3-r4, …: every router has an eth0 that is up
  const links = ROUTERS.filter((_, i) => i % 2 === 0).map((r, k) => [r, ROUTERS[2 * k + 1]!] as [string, string]);
  const lab = await startLab({ routers: ROUTERS, links });
  const far = await behindLatency(lab.topology('class'), LATENCY_MS);
  const { checks } = parseCheckText(CHECKS, 'bench');
  try {
    const scopes = ROUTERS.map((_, i) => studentScope(far.topology, i));
    const one = await oneProject(scopes[0]!, checks);
    const eight = await wholeClass(scopes, checks, 8);
    const all = await wholeClass(scopes, checks, PROJECTS);
    const commands = await classCommandTimes(lab, far.topology, ROUTERS, CHECKS, RUNS);
    const x = (v: number, base: number) => `${(v / base).toFixed(2)}×`;
    return {
      title: `class check: ${PROJECTS} projects × ${checks.length} checks, consoles ${LATENCY_MS} ms away`,
      columns: ['case', 'time', 'vs one project'],
      rows: [
        ['one project, cold (console connect included)', fmtMs(one.cold), '1.00×'],
        [`${PROJECTS} projects, --jobs 8 (default), cold`, fmtMs(eight.cold), x(eight.cold, one.cold)],
        [`${PROJECTS} projects, --jobs ${PROJECTS}, cold`, fmtMs(all.cold), x(all.cold, one.cold)],
        ['one project, warm (sessions kept: a --watch round)', fmtMs(one.warm), '1.00×'],
        [`${PROJECTS} projects, --jobs 8, warm`, fmtMs(eight.warm), x(eight.warm, one.warm)],
        [`${PROJECTS} projects, --jobs ${PROJECTS}, warm`, fmtMs(all.warm), x(all.warm, one.warm)],
        ...commandRows('check FILE', commands.check),
        [
          'command: `check FILE --project student-01` on the modules (GNS3_COPILOT_CODE_CACHE=off)',
          fmtMs(commands.checkModules),
          x(commands.checkModules, commands.check.one),
        ],
        ...commandRows('checkpoint save stage1', commands.save),
        ...commandRows('checkpoint restore stage1 --yes', commands.restore),
      ],
      notes: [
        `goal: the class ≤ 3× one project's check (medians of ${RUNS}); each project's R1 is its own FRR router`,
        `consoles ${LATENCY_MS} ms away each way (bench/console-latency.ts), ${PROJECTS} routers sharing the machine's cores with the checker`,
        'before each `checkpoint restore` every router it restores gets one change out of band; a restore reads each one back until two reads 1 s apart agree',
        // why --jobs 8 cannot reach 3×: at most N projects at once, each as long as one alone
        `one project's grading inside the class (median, warm): ${fmtMs(eight.perProjectWarm)} at --jobs 8, ${fmtMs(all.perProjectWarm)} at --jobs ${PROJECTS} ` +
          `(alone: ${fmtMs(one.warm)}); --jobs N grades at most N projects at once, so the class takes at least ` +
          `⌈${PROJECTS}/N⌉ such rounds: ${Math.ceil(PROJECTS / 8)} at --jobs 8, ${Math.ceil(PROJECTS / PROJECTS)} at --jobs ${PROJECTS}`,
      ],
    };
  } finally {
    await far.close();
    await lab.stop();
  }
}

/**
 * Runs checks against the live lab, deterministically (no LLM): topology checks
 * from one read of the project, device checks through the device engine in
 * read-only mode, all devices in parallel, one pooled session per device, and
 * each distinct command sent once per device however many checks read it.
 */
import { performance } from 'node:perf_hooks';
import type { Settings } from '../config/schema.js';
import { runDeviceJobs, type DeviceJob } from '../devices/engine.js';
import type { DevicePool } from '../devices/pool.js';
import { runLimited } from '../core/run-limited.js';
import { findNode, resolveTarget, type DeviceTarget } from '../devices/target.js';
import type { CommandResult, DeviceResult } from '../devices/types.js';
import type { PlatformName } from '../devices/drivers.js';
import { errorMessage } from '../errors.js';
import type { Topology, TopologyLinkEnd } from '../gns3/types.js';
import type { Logger } from '../log.js';
import { FRR_PING_WINDOW_MS, planCheck, type CheckStatus, type Plan, type Verdict } from './plan.js';
import { sameInterface } from './parse.js';
import { defaultName, deviceOf, kindOf, type Check, type CheckKind, type LinkCheck, type NodeCheck } from './schema.js';

export interface CheckResult {
  name: string;
  kind: CheckKind;
  status: CheckStatus;
  /** the line of device output (or topology fact) that decided the check */
  evidence: string;
  points: number;
  duration_ms: number;
  /** the stage the check belongs to (a file with `stages:` only) */
  stage?: string;
}

/** One stage's counts and score (./stages.ts). */
export interface StageSummary {
  name: string;
  passed: number;
  failed: number;
  errors: number;
  score: number;
  max_score: number;
}

export interface CheckReport {
  project: string;
  passed: number;
  failed: number;
  errors: number;
  score: number;
  max_score: number;
  checks: CheckResult[];
  /** per stage, in file order (a file with `stages:` only) */
  stages?: StageSummary[];
}

export interface RunChecksOptions {
  project: { projectName: string; getTopology(signal?: AbortSignal, opts?: { fresh?: boolean }): Promise<Topology> };
  settings: Settings;
  pool: DevicePool;
  signal?: AbortSignal;
  log?: Logger;
}

const round = (ms: number) => Math.round(ms * 10) / 10;

function nodeVerdict(c: NodeCheck, t: Topology): Verdict {
  const n = findNode(t, c.name);
  if (!n) return { status: 'fail', evidence: `no node ${c.name} in project ${t.project_name}` };
  const evidence = `${n.name}: ${n.status}`;
  return { status: n.status === c.status ? 'pass' : 'fail', evidence };
}

function endMatches(end: TopologyLinkEnd, ref: string, t: Topology): boolean {
  const [nodeRef, port] = ref.split(/:(.*)/s) as [string, string | undefined];
  const node = findNode(t, nodeRef);
  if (!node || node.node_id !== end.node_id) return false;
  if (!port) return true;
  const p = node.ports.find((x) => x.adapter_number === end.adapter_number && x.port_number === end.port_number);
  return [end.port_name, p?.name, p?.short_name].some(
    (n) => n !== undefined && n !== '' && (n.toLowerCase() === port.toLowerCase() || sameInterface(n, port)),
  );
}

function linkVerdict(c: LinkCheck, t: Topology): Verdict {
  for (const ref of [c.a, c.b]) {
    const name = ref.split(':')[0]!;
    if (!findNode(t, name)) return { status: 'fail', evidence: `no node ${name} in project ${t.project_name}` };
  }
  const link = t.links.find((l) => {
    const [x, y] = l.ends;
    if (!x || !y) return false;
    return (endMatches(x, c.a, t) && endMatches(y, c.b, t)) || (endMatches(x, c.b, t) && endMatches(y, c.a, t));
  });
  if (!link) return { status: 'fail', evidence: `no link ${c.a} <-> ${c.b}` };
  const text = link.ends.map((e) => `${e.node_name}:${e.port_name}`).join(' <-> ');
  if (c.clean) {
    const filters = Object.entries(link.filters).filter(([, v]) => Array.isArray(v) && v.length > 0);
    if (link.suspend) return { status: 'fail', evidence: `${text} is suspended` };
    if (filters.length > 0) return { status: 'fail', evidence: `${text} filters ${JSON.stringify(Object.fromEntries(filters))}` };
    return { status: 'pass', evidence: `${text} (no filters)` };
  }
  return { status: 'pass', evidence: text };
}

interface DeviceWork {
  name: string;
  target?: DeviceTarget;
  platform?: PlatformName;
  /** why nothing could run on this device */
  problem?: string;
  checks: { index: number; check: Check; plan?: Plan }[];
}

/** The sessions a check run opened (platform learned at connect), or why a device cannot be reached. */
async function connect(work: DeviceWork[], opts: RunChecksOptions): Promise<void> {
  await runLimited(work, opts.settings.device_concurrency, async (w) => {
    if (!w.target) return;
    try {
      const s = await opts.pool.acquire(w.target, opts.signal);
      w.platform = s.platform;
    } catch (err) {
      w.problem = `cannot reach ${w.name} (${w.target.host}:${w.target.port}): ${errorMessage(err)}`;
    }
  });
}

export async function runChecks(checks: Check[], opts: RunChecksOptions): Promise<CheckReport> {
  const t0 = performance.now();
  // never a cached read: a verdict is on the lab as it is now (a repair check must not pass on a read from before its fault)
  const topology = await opts.project.getTopology(opts.signal, { fresh: true });
  const topologyMs = round(performance.now() - t0);
  const verdicts = new Array<{ verdict: Verdict; ms: number } | undefined>(checks.length);

  const byDevice = new Map<string, DeviceWork>();
  for (const [index, check] of checks.entries()) {
    if ('node' in check) verdicts[index] = { verdict: nodeVerdict(check.node, topology), ms: topologyMs };
    else if ('link' in check) verdicts[index] = { verdict: linkVerdict(check.link, topology), ms: topologyMs };
    else {
      const dev = deviceOf(check)!;
      const key = (findNode(topology, dev)?.name ?? dev).toLowerCase();
      let w = byDevice.get(key);
      if (!w) {
        const resolved = resolveTarget(topology, dev, opts.settings);
        w = resolved.ok
          ? { name: resolved.target.name, target: resolved.target, checks: [] }
          : { name: dev, problem: resolved.error, checks: [] };
        byDevice.set(key, w);
      }
      w.checks.push({ index, check });
    }
  }
  const work = [...byDevice.values()];
  await connect(work, opts);

  // Plan every check for its device's platform; collect each device's distinct commands.
  const normal: DeviceJob[] = [];
  const bounded: DeviceJob[] = [];
  for (const w of work) {
    const cmds = new Set<string>();
    const slow = new Set<string>();
    for (const item of w.checks) {
      if (w.problem || !w.platform) {
        verdicts[item.index] = { verdict: { status: 'error', evidence: w.problem ?? `${w.name}: platform unknown` }, ms: 0 };
        continue;
      }
      const plan = planCheck(item.check, w.platform);
      if ('error' in plan) {
        verdicts[item.index] = { verdict: { status: 'error', evidence: plan.error }, ms: 0 };
        continue;
      }
      item.plan = plan;
      plan.commands.forEach((c) => cmds.add(c));
      plan.bounded.forEach((c) => slow.add(c));
    }
    const resolved = { ok: true as const, target: { ...w.target!, ...(w.platform ? { platform: w.platform } : {}) } };
    if (cmds.size > 0) normal.push({ device_name: w.name, resolved, commands: [...cmds] });
    if (slow.size > 0) bounded.push({ device_name: w.name, resolved, commands: [...slow] });
  }

  const common = {
    mode: 'read' as const,
    pool: opts.pool,
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.log ? { log: opts.log } : {}),
  };
  const [normalResults, boundedResults] = await Promise.all([
    runDeviceJobs(normal, { ...common, settings: opts.settings }),
    runDeviceJobs(bounded, {
      ...common,
      settings: {
        ...opts.settings,
        command_timeout_ms: FRR_PING_WINDOW_MS,
        session_timeout_ms: Math.max(opts.settings.session_timeout_ms, FRR_PING_WINDOW_MS * (bounded.length + 2)),
      },
    }),
  ]);
  const outputs = new Map<string, Map<string, CommandResult>>();
  const add = (r: DeviceResult) => {
    const m = outputs.get(r.device_name.toLowerCase()) ?? new Map<string, CommandResult>();
    for (const c of r.results) m.set(c.command, c);
    // a device-level error (session lost) with no per-command result still explains every command
    outputs.set(r.device_name.toLowerCase(), m);
  };
  normalResults.forEach(add);
  boundedResults.forEach(add);

  for (const w of work) {
    const results = outputs.get(w.name.toLowerCase());
    for (const item of w.checks) {
      if (!item.plan) continue;
      const plan = item.plan;
      const used = [...plan.commands, ...plan.bounded];
      const ms = round(used.reduce((sum, c) => sum + (results?.get(c)?.duration_ms ?? 0), 0));
      let verdict: Verdict;
      try {
        verdict = plan.decide((c) => results?.get(c));
      } catch (err) {
        verdict = { status: 'error', evidence: `cannot decide: ${errorMessage(err)}` };
      }
      verdicts[item.index] = { verdict, ms };
    }
  }

  const results: CheckResult[] = checks.map((c, i) => {
    const v = verdicts[i] ?? { verdict: { status: 'error' as const, evidence: 'not evaluated' }, ms: 0 };
    return {
      name: c.name ?? defaultName(c),
      kind: kindOf(c),
      status: v.verdict.status,
      evidence: v.verdict.evidence,
      points: c.points,
      duration_ms: v.ms,
    };
  });
  return summarize(topology.project_name, results);
}

export function summarize(project: string, checks: CheckResult[]): CheckReport {
  const count = (s: CheckStatus) => checks.filter((c) => c.status === s).length;
  return {
    project,
    passed: count('pass'),
    failed: count('fail'),
    errors: count('error'),
    score: checks.filter((c) => c.status === 'pass').reduce((s, c) => s + c.points, 0),
    max_score: checks.reduce((s, c) => s + c.points, 0),
    checks,
  };
}

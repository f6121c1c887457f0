/**
 * `diff` and `rewind` (the CLI and the TUI's /rewind): read the checkpoints
 * from the rewind point on, capture the devices now, plan, and — for a rewind
 * — apply through the tool gate like any agent call (mode, policy, approval),
 * then capture again and report per device `restored` or the lines that remain
 * (the restore itself: ./restore-engine.ts, shared with the named lab checkpoints).
 *
 * A rewind is a request of its own (CheckpointStore.beginRewind): its captures
 * of the lab before it changes anything are checkpoints, so it can be rewound.
 * It is marked done only at the end; one that died half way is resumed by the
 * next `rewind` (same target, same request), which plans again from a fresh
 * capture and sends what is still missing.
 */
import { cliApproval, cliRefusalText } from '../tools/cli-dispatch.js';
import type { ToolContext } from '../tools/types.js';
import type { ToolRegistry } from '../tools/registry.js';
import { asGns3Project } from '../tools/gns3/common.js';
import { captureDevices } from '../checkpoints/capture.js';
import type { CheckpointStore } from '../checkpoints/store.js';
import type { DeviceCheckpoint, TopologyBefore } from '../checkpoints/types.js';
import { planDevice, planTopology, topologyPlanEmpty, type DevicePlan, type TopologyNow, type TopologyPlan } from '../checkpoints/plan.js';
import { markFaultsUndone } from './rewind-faults.js';
import {
  approveTopology,
  precheckRestore,
  reportOf,
  restoreCalls,
  sendRestore,
  verifyRestored,
  type DeviceReport,
  type RestoreApproval,
  type RestoreBlock,
} from './restore-engine.js';

export type { DeviceOutcome, DeviceReport } from './restore-engine.js';

export interface RewindOptions extends RestoreApproval {
  sessionId: string;
  /** the lab just before this request */
  to: number;
  devices?: string[];
  /**
   * exactly these device checkpoints instead of each device's first since `to` (a regression's
   * rewind: per device the one taken before the regressed call, so an earlier call's change stays)
   */
  checkpoints?: number[];
  dryRun?: boolean;
  /** hears the plan once it is made, before anything is asked or sent (the TUI prints it above the approval box) */
  onPlan?: (plan: RewindReport) => void;
}

export interface TopologyReport extends TopologyPlan {
  status: 'unchanged' | 'planned' | 'restored' | 'partial' | 'blocked';
  errors: string[];
}

export interface RewindReport {
  session_id: string;
  to: number;
  /** the device checkpoints restored when a regression's rewind named them (absent: each device's first since `to`) */
  checkpoints?: number[];
  /** the request number this rewind runs as (absent for a diff or a dry run) */
  request_no?: number;
  resumed?: boolean;
  devices: DeviceReport[];
  topology: TopologyReport;
  /** a call the gate refused: why (exit 6 when it needed an approval nobody gave) */
  blocked?: RewindBlock;
  /** the session's faults (inject mode) this rewind undid, now marked restored in the ledger; absent for a diff, a dry run or a refused rewind */
  faults_restored?: number[];
  /** restored faults the rewind brought back (open again in the ledger); absent as faults_restored is */
  faults_reopened?: number[];
}

/** Why a rewind sent nothing: a call the gate refused, or the approval nobody gave. */
export type RewindBlock = RestoreBlock;

export interface RewindDeps {
  store: CheckpointStore;
  registry: ToolRegistry;
  ctx: ToolContext;
}

async function topologyNow(ctx: ToolContext): Promise<TopologyNow & { labels: Map<string, string> }> {
  const project = asGns3Project(await ctx.project());
  project.invalidate();
  const raw = await project.rawState(ctx.signal);
  const labels = new Map<string, string>();
  for (const l of raw.links) labels.set(l.link_id, await project.linkLabel(l, ctx.signal));
  return {
    nodes: raw.nodes.map((n) => ({ node_id: n.node_id, name: n.name, status: n.status })),
    links: raw.links.map((l) => ({
      link_id: l.link_id,
      filters: l.filters ?? {},
      suspend: l.suspend ?? false,
      label: labels.get(l.link_id)!,
    })),
    labels,
  };
}

/** The device checkpoints a rewind goes back to: the ones named, or per device the first since request `to`. */
export function rewindPoint(
  store: CheckpointStore,
  o: Pick<RewindOptions, 'sessionId' | 'to' | 'devices' | 'checkpoints'>,
): DeviceCheckpoint[] {
  return o.checkpoints ? store.devicesByIds(o.sessionId, o.checkpoints) : store.devicesAt(o.sessionId, o.to, o.devices);
}

/** What changed since just before request `to` (or the named checkpoints): per device the diff to a fresh capture, and the topology plan. */
export async function planRewind(
  deps: RewindDeps,
  o: Pick<RewindOptions, 'sessionId' | 'to' | 'devices' | 'checkpoints'>,
): Promise<{ plans: DevicePlan[]; topology: TopologyPlan; now: TopologyNow }> {
  const checkpoints = rewindPoint(deps.store, o);
  const captures = await captureDevices(
    checkpoints.filter((c) => c.config !== null).map((c) => c.device),
    deps.ctx,
  );
  const plans = checkpoints.map((c) => planDevice(c, captures.get(c.device) ?? { error: 'not captured' }));
  const topoCheckpoints = o.devices || o.checkpoints ? [] : deps.store.topologyFrom(o.sessionId, o.to);
  const now = topoCheckpoints.length > 0 ? await topologyNow(deps.ctx) : { nodes: [], links: [] };
  return { plans, topology: planTopology(topoCheckpoints, now), now };
}

export async function diffSession(deps: RewindDeps, o: Pick<RewindOptions, 'sessionId' | 'to' | 'devices'>): Promise<RewindReport> {
  const { plans, topology } = await planRewind(deps, o);
  return {
    session_id: o.sessionId,
    to: o.to,
    devices: plans.map((p) => reportOf(p, p.status === 'restore' ? 'planned' : p.status)),
    topology: { ...topology, status: topologyPlanEmpty(topology) ? 'unchanged' : 'planned', errors: [] },
  };
}

/** A call refused for want of approval, in a rewind's words. */
const refusalText = cliRefusalText('a rewind', 'rerun the rewind with --yes to apply this plan');

export async function runRewind(deps: RewindDeps, o: RewindOptions): Promise<RewindReport> {
  const { store, registry, ctx } = deps;
  const unfinished = store.unfinishedRewind(o.sessionId);
  const resumed = unfinished !== undefined && unfinished.to_request === o.to;
  const { plans, topology, now } = await planRewind(deps, o);
  const report: RewindReport = {
    session_id: o.sessionId,
    to: o.to,
    ...(o.checkpoints ? { checkpoints: o.checkpoints } : {}),
    devices: plans.map((p) => reportOf(p, p.status === 'restore' ? 'planned' : p.status)),
    topology: { ...topology, status: topologyPlanEmpty(topology) ? 'unchanged' : 'planned', errors: [] },
    ...(resumed ? { resumed } : {}),
  };
  const toRestore = plans.filter((p) => p.status === 'restore');
  o.onPlan?.(structuredClone(report));
  const calls = restoreCalls(toRestore, topology);
  const approval = cliApproval(o);
  const refuse = ({ reason, needsApproval }: RewindBlock): RewindReport => {
    for (const d of report.devices) if (d.status === 'planned') d.status = 'blocked';
    if (report.topology.status === 'planned') report.topology.status = 'blocked';
    return { ...report, blocked: { reason, needsApproval } };
  };
  const gate = precheckRestore(calls, o.mode, registry, approval, refusalText);
  // a dry run promises nothing the gate would refuse whoever approved it
  if (o.dryRun) return gate && !gate.needsApproval ? refuse(gate) : report;
  if (toRestore.length === 0 && topologyPlanEmpty(topology)) {
    ledgerAfter(report, markFaultsUndone(store, o, report));
    if (resumed) store.finishRewind(o.sessionId, unfinished.request_no);
    return report;
  }
  if (gate) return refuse(gate);
  // A rewind changes the lab as a whole: it needs the approval even where each call alone would not.
  if (!o.approver) return refuse({ reason: 'a rewind needs approval, which nobody gave', needsApproval: true });
  if (!topologyPlanEmpty(topology)) {
    const no = await approveTopology('rewind: restore the topology', topology, calls, deps, approval);
    if (no) return refuse(no);
  }

  // Approved. The rewind is a request: checkpoint the lab as it is before changing it.
  const requestNo = resumed ? unfinished.request_no : store.beginRewind(o.sessionId, o.to);
  report.request_no = requestNo;
  for (const p of toRestore) {
    // the fresh capture the plan was made from is the state before this rewind
    const current = p.current;
    if (current !== undefined)
      store.saveDevice({ session_id: o.sessionId, request_no: requestNo, call_id: 'rewind', device: p.name, config: current });
  }
  if (!topologyPlanEmpty(topology))
    store.saveTopology({ session_id: o.sessionId, request_no: requestNo, call_id: 'rewind', before: touched(topology, now) });

  report.topology.errors = await sendRestore(calls, topology, deps, approval, { mode: o.mode, interactive: o.interactive, refusalText });
  if (report.topology.status === 'planned') report.topology.status = report.topology.errors.length ? 'partial' : 'restored';
  const checkpoints = new Map(rewindPoint(store, o).map((c) => [c.device, c]));
  await verifyRestored(report.devices, checkpoints, ctx, { restore: 'the rewind', target: 'the checkpoint' });
  ledgerAfter(report, markFaultsUndone(store, o, report));
  store.finishRewind(o.sessionId, requestNo);
  return report;
}

function touched(plan: TopologyPlan, now: TopologyNow): TopologyBefore {
  const nodeIds = new Set([...plan.rename.map((r) => r.node_id), ...plan.power.map((s) => s.node_id)]);
  const linkIds = new Set(plan.filters.map((f) => f.link_id));
  return {
    nodes: now.nodes.filter((n) => nodeIds.has(n.node_id)),
    links: now.links
      .filter((l) => linkIds.has(l.link_id))
      .map((l) => ({ link_id: l.link_id, filters: l.filters, ...(l.suspend !== undefined ? { suspend: l.suspend } : {}) })),
  };
}

/** What the applied rewind changed in the fault ledger, on the report. */
function ledgerAfter(report: RewindReport, m: { restored: number[]; reopened: number[] }): void {
  report.faults_restored = m.restored;
  report.faults_reopened = m.reopened;
}

/**
 * `diff` and `rewind` (the CLI and the TUI's /rewind): read the checkpoints
 * from the rewind point on, capture the devices now, plan, and — for a rewind
 * — apply through the tool gate like any agent call (mode, policy, approval),
 * then capture again and report per device `restored` or the lines that remain.
 *
 * A rewind is a request of its own (CheckpointStore.beginRewind): its captures
 * of the lab before it changes anything are checkpoints, so it can be rewound.
 * It is marked done only at the end; one that died half way is resumed by the
 * next `rewind` (same target, same request), which plans again from a fresh
 * capture and sends what is still missing.
 */
import type { Approver } from '../core/api.js';
import type { CopilotMode } from '../core/modes.js';
import { CLI_CALLER } from '../core/caller.js';
import { assessCall, type ApprovalRules, type ApprovePolicy } from '../tools/gate.js';
import { askApproval } from '../tools/approval.js';
import { CLI_LIMITS, cliApproval, cliRefusalText, dispatchFromCli } from '../tools/cli-dispatch.js';
import type { DispatchCall } from '../tools/dispatch.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { ToolContext, ToolResult } from '../tools/types.js';
import { asGns3Project } from '../tools/gns3/common.js';
import { errorMessage } from '../errors.js';
import { captureDevices } from '../checkpoints/capture.js';
import { capturePreviewer } from '../checkpoints/preview.js';
import type { CheckpointStore } from '../checkpoints/store.js';
import type { TopologyBefore } from '../checkpoints/types.js';
import { planDevice, planTopology, topologyPlanEmpty, type DevicePlan, type TopologyNow, type TopologyPlan } from '../checkpoints/plan.js';
import { markFaultsUndone } from './rewind-faults.js';

export interface RewindOptions {
  sessionId: string;
  /** the lab just before this request */
  to: number;
  devices?: string[];
  mode: CopilotMode;
  dryRun?: boolean;
  /** the user's approval policy; a rewind asks unless it is `never` */
  policy: ApprovePolicy;
  approvalTools: readonly string[];
  /** who approves (`--yes` in a one-shot, the approval prompt in the TUI); absent: nobody can */
  approver?: Approver;
  interactive: boolean;
  /** hears the plan once it is made, before anything is asked or sent (the TUI prints it above the approval box) */
  onPlan?: (plan: RewindReport) => void;
}

export type DeviceOutcome = 'unchanged' | 'planned' | 'restored' | 'remaining' | 'blocked' | 'review' | 'no_checkpoint' | 'error';

export interface DeviceReport {
  name: string;
  status: DeviceOutcome;
  platform?: string;
  request_no: number;
  commands: string[];
  display: string[];
  remaining: string[];
  diff: string;
  error?: string;
}

export interface TopologyReport extends TopologyPlan {
  status: 'unchanged' | 'planned' | 'restored' | 'partial' | 'blocked';
  errors: string[];
}

export interface RewindReport {
  session_id: string;
  to: number;
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
export interface RewindBlock {
  reason: string;
  needsApproval: boolean;
}

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

const reportOf = (p: DevicePlan, status: DeviceOutcome, extra: Partial<DeviceReport> = {}): DeviceReport => ({
  name: p.name,
  status,
  ...(p.platform ? { platform: p.platform } : {}),
  request_no: p.request_no,
  commands: p.commands,
  display: p.display,
  remaining: p.remaining,
  diff: p.diff,
  ...(p.error ? { error: p.error } : {}),
  ...extra,
});

/** What changed since just before request `to`: per device the diff to a fresh capture, and the topology plan. */
export async function planRewind(
  deps: RewindDeps,
  o: Pick<RewindOptions, 'sessionId' | 'to' | 'devices'>,
): Promise<{ plans: DevicePlan[]; topology: TopologyPlan; now: TopologyNow }> {
  const checkpoints = deps.store.devicesAt(o.sessionId, o.to, o.devices);
  const captures = await captureDevices(
    checkpoints.filter((c) => c.config !== null).map((c) => c.device),
    deps.ctx,
  );
  const plans = checkpoints.map((c) => planDevice(c, captures.get(c.device) ?? { error: 'not captured' }));
  const topoCheckpoints = o.devices ? [] : deps.store.topologyFrom(o.sessionId, o.to);
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

/** The calls a restore sends, in the order it sends them (devices last), each judged by the gate as if the agent asked for it. */
function restoreCalls(toRestore: DevicePlan[], topology: TopologyPlan): DispatchCall[] {
  const calls: DispatchCall[] = [];
  const routers = toRestore.filter((p) => p.platform !== 'vpcs');
  const pcs = toRestore.filter((p) => p.platform === 'vpcs');
  if (routers.length)
    calls.push({
      id: 'rewind-config',
      name: 'execute_multiple_device_config_commands',
      // every line is tried: one refused negation must not leave the rest of the restore unsent
      args: { device_configs: routers.map((p) => ({ device_name: p.name, config_commands: p.commands })), continue_on_error: true },
    });
  if (pcs.length)
    calls.push({
      id: 'rewind-vpcs',
      name: 'execute_vpcs_commands',
      args: { device_configs: pcs.map((p) => ({ device_name: p.name, commands: p.commands })) },
    });
  const stopFirst = topology.power.filter((s) => s.to === 'stopped');
  const powerLater = topology.power.filter((s) => s.to !== 'stopped');
  if (stopFirst.length) calls.push({ id: 'rewind-stop', name: 'stop_gns3_node', args: { nodes: stopFirst.map((s) => s.node_id) } });
  if (topology.rename.length)
    calls.push({
      id: 'rewind-rename',
      name: 'update_gns3_node_name',
      args: { nodes: topology.rename.map((r) => ({ node: r.node_id, new_name: r.to })) },
    });
  for (const to of ['started', 'suspended'] as const) {
    const nodes = powerLater.filter((s) => s.to === to).map((s) => s.node_id);
    if (nodes.length) calls.push({ id: `rewind-${to}`, name: to === 'started' ? 'start_gns3_node' : 'suspend_gns3_node', args: { nodes } });
  }
  for (const f of topology.filters)
    calls.push({ id: `rewind-filter-${f.link_id}`, name: 'manage_gns3_packet_filter', args: { link: f.link_id, action: 'clear' } });
  return calls;
}

/**
 * The gate's verdicts on every call before anything runs, without asking anybody: the first
 * call it would not let run, or nothing. The `cli` caller may send what a restore needs in any
 * mode (ToolRegistry.visible); the approval policy and the limits still judge each call.
 */
function precheck(calls: DispatchCall[], o: RewindOptions, registry: ToolRegistry, approval: ApprovalRules): RewindBlock | undefined {
  for (const call of calls) {
    const v = assessCall(
      call,
      { mode: o.mode, caller: CLI_CALLER, limits: CLI_LIMITS, count: 0, counts: {} },
      { tools: registry, approval },
    );
    if (v.kind === 'blocked' || v.kind === 'limit') return { reason: v.reason, needsApproval: false };
    if (v.kind === 'refused') return { reason: refusalText(v.refusal), needsApproval: true };
  }
  return undefined;
}

export async function runRewind(deps: RewindDeps, o: RewindOptions): Promise<RewindReport> {
  const { store, registry, ctx } = deps;
  const unfinished = store.unfinishedRewind(o.sessionId);
  const resumed = unfinished !== undefined && unfinished.to_request === o.to;
  const { plans, topology, now } = await planRewind(deps, o);
  const report: RewindReport = {
    session_id: o.sessionId,
    to: o.to,
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
  const gate = precheck(calls, o, registry, approval);
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
    // The topology is restored as a whole (deleting has no tool of its own, renames and power
    // need no approval alone): one question for all of it, and its calls are not asked about again.
    const a = await askApproval(
      { id: 'rewind-topology', name: 'rewind: restore the topology', args: { ...topology } },
      approval,
      ctx.signal,
      undefined,
    );
    if (a.kind !== 'allowed') return refuse({ reason: a.reason, needsApproval: true });
    // each topology call allowed on exactly the targets the user just saw, nothing wider
    for (const c of calls)
      if (c.id !== 'rewind-config' && c.id !== 'rewind-vpcs') approval.allowances.allow(c.name, registry.get(c.name)?.targets?.(c.args));
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

  // Every call goes through the one dispatch (gate, approval, execution), in the order a restore needs.
  const dispatch = async (batch: DispatchCall[]): Promise<ToolResult[]> => {
    if (batch.length === 0) return [];
    const out = await dispatchFromCli(batch, {
      registry,
      approval,
      mode: o.mode,
      ctx,
      wordRefusal: refusalText,
      maxParallel: 4,
      // the person approving sees what each restore would do to the device as it is now
      ...(o.interactive ? { previewer: capturePreviewer((signal) => ({ ...ctx, signal })) } : {}),
    });
    out.results.forEach((r, i) => {
      if (r.status !== 'success' && !batch[i]!.id.startsWith('rewind-config') && !batch[i]!.id.startsWith('rewind-vpcs'))
        report.topology.errors.push(`${batch[i]!.name}: ${r.display ?? r.output.slice(0, 200)}`);
    });
    return out.results;
  };
  // Topology first (deleted nodes need no restore; started nodes can be configured), devices after.
  const project = asGns3Project(await ctx.project());
  for (const l of topology.delete_links) {
    try {
      await project.call('DELETE', `/links/${l.link_id}`, { signal: ctx.signal });
    } catch (err) {
      report.topology.errors.push(`delete link ${l.label}: ${errorMessage(err)}`);
    }
  }
  for (const n of topology.delete_nodes) {
    try {
      await project.call('DELETE', `/nodes/${n.node_id}`, { signal: ctx.signal });
    } catch (err) {
      report.topology.errors.push(`delete node ${n.name}: ${errorMessage(err)}`);
    }
  }
  const isDevice = (c: DispatchCall) => c.id === 'rewind-config' || c.id === 'rewind-vpcs';
  // power and names one after the other (a v3 server renames only a stopped node), filters together
  for (const call of calls.filter((c) => !isDevice(c) && !c.id.startsWith('rewind-filter-'))) await dispatch([call]);
  const cleared = calls.filter((c) => c.id.startsWith('rewind-filter-'));
  const clearedResults = await dispatch(cleared);
  await dispatch(
    cleared.flatMap((c, i) => {
      const f = topology.filters.find((x) => c.id === `rewind-filter-${x.link_id}`)!;
      return clearedResults[i]?.status === 'success' && Object.keys(f.to).length > 0
        ? [{ id: `${c.id}-set`, name: 'manage_gns3_packet_filter', args: { link: f.link_id, action: 'set', filters: f.to } }]
        : [];
    }),
  );
  if (report.topology.status === 'planned') report.topology.status = report.topology.errors.length ? 'partial' : 'restored';

  await dispatch(calls.filter(isDevice));
  const again = await captureDevices(
    toRestore.map((p) => p.name),
    ctx,
  );
  const checkpoints = new Map(store.devicesAt(o.sessionId, o.to, o.devices).map((c) => [c.device, c]));
  for (const d of report.devices) {
    if (d.status !== 'planned') continue;
    const cp = checkpoints.get(d.name)!;
    const cap = again.get(d.name);
    if (cap?.config === undefined) {
      d.status = 'error';
      d.error = `cannot capture ${d.name} after the rewind: ${cap?.error ?? 'no answer'}`;
      continue;
    }
    const left = planDevice(cp, cap);
    d.remaining = left.remaining;
    d.status = left.status === 'unchanged' ? 'restored' : 'remaining';
    if (d.status === 'remaining') d.error = `${d.remaining.length} line(s) still differ from the checkpoint`;
  }
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

/**
 * `checkpoint diff` and `checkpoint restore`: a named lab checkpoint against the lab now
 * (src/checkpoints/named-store.ts), and putting the lab back to it through the restore
 * engine `rewind` uses (./restore-engine.ts: the gate's verdict on every call first, one
 * question for the topology, the one dispatch with the `cli` caller, a fresh capture per
 * device after). `--device` limits both to those devices' configurations (the topology is
 * then left as it is).
 *
 * A restore is recorded while it runs (lab_checkpoint_restores). One that was killed half
 * way stays `running`; the next restore of that checkpoint plans again from a fresh capture
 * — so it sends only what is still missing — says it resumed, and ends both.
 */
import { UsageError } from '../errors.js';
import { cliApproval, cliRefusalText } from '../tools/cli-dispatch.js';
import type { ToolContext } from '../tools/types.js';
import type { ToolRegistry } from '../tools/registry.js';
import { asGns3Project } from '../tools/gns3/common.js';
import { captureDevices } from '../checkpoints/capture.js';
import { planDevice, topologyPlanEmpty, type DevicePlan, type PlanSource } from '../checkpoints/plan.js';
import { planLabTopology, topologyNowOf, type LabTopologyPlan } from '../checkpoints/named-plan.js';
import type { LabKey, NamedCheckpointStore } from '../checkpoints/named-store.js';
import type { LabCheckpoint } from '../checkpoints/named-types.js';
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

export interface NamedTopologyReport extends LabTopologyPlan {
  status: 'unchanged' | 'planned' | 'restored' | 'partial' | 'blocked';
  errors: string[];
}

export interface NamedRestoreReport {
  checkpoint: string;
  project: string;
  project_id: string;
  saved_at: string;
  note: string | null;
  /** this restore finished one that was killed half way */
  resumed?: boolean;
  /** every device of the checkpoint (or of --device): a device that was not saved is `no_checkpoint` with the reason */
  devices: DeviceReport[];
  topology: NamedTopologyReport;
  blocked?: RestoreBlock;
}

export interface NamedRestoreDeps {
  store: NamedCheckpointStore;
  registry: ToolRegistry;
  ctx: ToolContext;
  /** the controller part of the checkpoint's key */
  controller: string;
}

export interface NamedRestoreOptions extends RestoreApproval {
  name: string;
  devices?: string[];
  dryRun?: boolean;
  /** hears the plan once it is made, before anything is asked or sent */
  onPlan?: (plan: NamedRestoreReport) => void;
}

/** The checkpoint by name in the project the context opens; an unknown name is a usage error naming the ones there are. */
export async function findLabCheckpoint(
  deps: Pick<NamedRestoreDeps, 'store' | 'ctx' | 'controller'>,
  name: string,
): Promise<LabCheckpoint> {
  const scope = await deps.ctx.project();
  const key: LabKey = { controller: deps.controller, project_id: scope.projectId };
  const cp = deps.store.get(key, name);
  if (cp) return cp;
  const names = deps.store.list(key).map((c) => c.name);
  throw new UsageError(
    `no checkpoint "${name}" for project ${scope.projectName}${names.length ? ` (checkpoints: ${names.join(', ')})` : ' (it has none: checkpoint save NAME)'}`,
  );
}

/** The checkpoint's devices `--device` names (case-insensitively, as device names are matched elsewhere); an unknown one is a usage error. */
function selectDevices(cp: LabCheckpoint, wanted: string[] | undefined): LabCheckpoint['devices'] {
  if (!wanted) return cp.devices;
  return [...new Set(wanted)].map((w) => {
    const d = cp.devices.find((x) => x.device === w) ?? cp.devices.find((x) => x.device.toLowerCase() === w.toLowerCase());
    if (!d) throw new UsageError(`--device ${w}: not in checkpoint "${cp.name}" (devices: ${cp.devices.map((x) => x.device).join(', ')})`);
    return d;
  });
}

/** Per device the plan from a fresh capture back to the saved configuration, and the topology's plan (none with --device). */
export async function planNamedRestore(
  deps: Pick<NamedRestoreDeps, 'ctx'>,
  cp: LabCheckpoint,
  devices: string[] | undefined,
): Promise<{ plans: DevicePlan[]; sources: Map<string, PlanSource>; topology: LabTopologyPlan }> {
  const chosen = selectDevices(cp, devices);
  const project = asGns3Project(await deps.ctx.project());
  // the topology as it is now, not as a cache of this process last read it
  project.invalidate();
  const topology = await project.getTopology(deps.ctx.signal);
  // a node renamed since is captured under its name now (the restore renames it back first)
  const nameNow = new Map(topology.nodes.map((n) => [n.node_id, n.name]));
  const saved = chosen.filter((d) => d.config !== null);
  const captures = await captureDevices(
    saved.map((d) => nameNow.get(d.node_id) ?? d.device),
    deps.ctx,
  );
  const sources = new Map<string, PlanSource>(chosen.map((d) => [d.device, { device: d.device, config: d.config, error: d.error }]));
  const plans = chosen.map((d) => {
    const p = planDevice(
      sources.get(d.device)!,
      captures.get(nameNow.get(d.node_id) ?? d.device) ?? { error: 'not captured' },
      `at checkpoint ${cp.name}`,
    );
    // not saved: the reason it was not, as `checkpoint save` reported it
    return d.config === null ? { ...p, error: `not saved in checkpoint ${cp.name}: ${d.error ?? 'not captured'}` } : p;
  });
  const empty: LabTopologyPlan = {
    delete_links: [],
    delete_nodes: [],
    rename: [],
    power: [],
    filters: [],
    missing_nodes: [],
    missing_links: [],
  };
  return { plans, sources, topology: devices ? empty : planLabTopology(cp.topology, topologyNowOf(topology)) };
}

function baseReport(cp: LabCheckpoint, plans: DevicePlan[], topology: LabTopologyPlan): NamedRestoreReport {
  return {
    checkpoint: cp.name,
    project: cp.project_name,
    project_id: cp.project_id,
    saved_at: cp.created_at,
    note: cp.note,
    devices: plans.map((p) => reportOf(p, p.status === 'restore' ? 'planned' : p.status)),
    topology: { ...topology, status: topologyPlanEmpty(topology) ? 'unchanged' : 'planned', errors: [] },
  };
}

/** The saved lab against the lab now: per device the diff (saved → now), the topology's changes. Reads only. */
export async function diffNamed(
  deps: Pick<NamedRestoreDeps, 'store' | 'ctx' | 'controller'>,
  name: string,
  devices?: string[],
): Promise<NamedRestoreReport> {
  const cp = await findLabCheckpoint(deps, name);
  const { plans, topology } = await planNamedRestore(deps, cp, devices);
  return baseReport(cp, plans, topology);
}

const refusalText = cliRefusalText('a checkpoint restore', 'rerun the restore with --yes to apply this plan');

/** `checkpoint restore`: plan, the gate's verdicts, the approval, the calls, a fresh capture per device. */
export async function restoreNamed(deps: NamedRestoreDeps, o: NamedRestoreOptions): Promise<NamedRestoreReport> {
  const cp = await findLabCheckpoint(deps, o.name);
  const unfinished = deps.store.unfinishedRestore(cp.id);
  const { plans, sources, topology } = await planNamedRestore(deps, cp, o.devices);
  const report = baseReport(cp, plans, topology);
  if (unfinished) report.resumed = true;
  o.onPlan?.(structuredClone(report));
  const toRestore = plans.filter((p) => p.status === 'restore');
  const calls = restoreCalls(toRestore, topology);
  const approval = cliApproval(o);
  const refuse = (block: RestoreBlock): NamedRestoreReport => {
    for (const d of report.devices) if (d.status === 'planned') d.status = 'blocked';
    if (report.topology.status === 'planned') report.topology.status = 'blocked';
    return { ...report, blocked: block };
  };
  const gate = precheckRestore(calls, o.mode, deps.registry, approval, refusalText);
  if (o.dryRun) return gate && !gate.needsApproval ? refuse(gate) : report;
  const devicesKey = o.devices ? report.devices.map((d) => d.name) : null;
  if (toRestore.length === 0 && topologyPlanEmpty(topology)) {
    // nothing to send: a killed restore this would have resumed has nothing left either
    if (unfinished) deps.store.finishRestore(cp.id, deps.store.beginRestore(cp.id, devicesKey), 'done');
    return report;
  }
  if (gate) return refuse(gate);
  // A restore changes the lab as a whole: it needs the approval even where each call alone would not.
  if (!o.approver) return refuse({ reason: 'a checkpoint restore needs approval, which nobody gave', needsApproval: true });
  if (!topologyPlanEmpty(topology)) {
    const no = await approveTopology(`checkpoint restore ${cp.name}: the topology`, topology, calls, deps, approval);
    if (no) return refuse(no);
  }
  const restoreId = deps.store.beginRestore(cp.id, devicesKey);
  report.topology.errors = await sendRestore(calls, topology, deps, approval, { mode: o.mode, interactive: o.interactive, refusalText });
  if (report.topology.status === 'planned') report.topology.status = report.topology.errors.length ? 'partial' : 'restored';
  await verifyRestored(report.devices, sources, deps.ctx, { restore: 'the restore', target: `checkpoint ${cp.name}` });
  deps.store.finishRestore(cp.id, restoreId, restoreIncomplete(report).length ? 'partial' : 'done');
  return report;
}

/** What a restore did not put back: devices whose lines remain or that could not be read, and the topology when partial. */
export function restoreIncomplete(r: NamedRestoreReport): string[] {
  return [
    ...r.devices.filter((d) => d.status === 'remaining' || d.status === 'error').map((d) => d.name),
    ...(r.topology.status === 'partial' ? ['topology'] : []),
  ];
}

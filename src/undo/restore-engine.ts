/**
 * Putting devices and a topology back to a plan, shared by `rewind` (a session's
 * checkpoints) and `checkpoint restore` (a named lab checkpoint): the restore as
 * tool calls, the gate's verdict on every call before anything is sent, the one
 * question for the topology, then the calls through the one dispatch with the `cli`
 * caller in the order a restore needs, and a fresh capture that says per device
 * `restored` or what remains.
 */
import type { Approver } from '../core/api.js';
import type { CopilotMode } from '../core/modes.js';
import { CLI_CALLER } from '../core/caller.js';
import { assessCall, type ApprovalRefusal, type ApprovalRules, type ApprovePolicy } from '../tools/gate.js';
import { askApproval, type ApprovalContext } from '../tools/approval.js';
import { CLI_LIMITS, dispatchFromCli } from '../tools/cli-dispatch.js';
import type { DispatchCall } from '../tools/dispatch.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { ToolContext, ToolResult } from '../tools/types.js';
import { asGns3Project } from '../tools/gns3/common.js';
import { errorMessage } from '../errors.js';
import { captureDevices } from '../checkpoints/capture.js';
import { capturePreviewer } from '../checkpoints/preview.js';
import { planDevice, type DevicePlan, type PlanSource, type TopologyPlan } from '../checkpoints/plan.js';

/** How a restore is approved: the user's policy, who approves, whether a person watches. */
export interface RestoreApproval {
  mode: CopilotMode;
  /** the user's approval policy; a restore asks unless it is `never` */
  policy: ApprovePolicy;
  approvalTools: readonly string[];
  /** who approves (`--yes` on the command line, the approval prompt in the TUI); absent: nobody can */
  approver?: Approver;
  interactive: boolean;
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

/** Why a restore sent nothing: a call the gate refused, or the approval nobody gave. */
export interface RestoreBlock {
  reason: string;
  needsApproval: boolean;
}

export interface RestoreDeps {
  registry: ToolRegistry;
  ctx: ToolContext;
}

export const reportOf = (p: DevicePlan, status: DeviceOutcome, extra: Partial<DeviceReport> = {}): DeviceReport => ({
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

const isDeviceCall = (c: DispatchCall) => c.id === 'rewind-config' || c.id === 'rewind-vpcs';

/** The calls a restore sends, in the order it sends them (devices last), each judged by the gate as if the agent asked for it. */
export function restoreCalls(toRestore: DevicePlan[], topology: TopologyPlan): DispatchCall[] {
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
export function precheckRestore(
  calls: DispatchCall[],
  mode: CopilotMode,
  registry: ToolRegistry,
  approval: ApprovalRules,
  refusalText: (r: ApprovalRefusal) => string,
): RestoreBlock | undefined {
  for (const call of calls) {
    const v = assessCall(call, { mode, caller: CLI_CALLER, limits: CLI_LIMITS, count: 0, counts: {} }, { tools: registry, approval });
    if (v.kind === 'blocked' || v.kind === 'limit') return { reason: v.reason, needsApproval: false };
    if (v.kind === 'refused') return { reason: refusalText(v.refusal), needsApproval: true };
  }
  return undefined;
}

/**
 * The topology is restored as a whole (deleting has no tool of its own, renames and power need
 * no approval alone): one question for all of it (`what` names it in the approval box), and its
 * calls are then allowed on exactly the targets the user saw, nothing wider.
 */
export async function approveTopology(
  what: string,
  topology: TopologyPlan,
  calls: DispatchCall[],
  deps: RestoreDeps,
  approval: ApprovalContext,
): Promise<RestoreBlock | undefined> {
  const a = await askApproval({ id: 'rewind-topology', name: what, args: { ...topology } }, approval, deps.ctx.signal, undefined);
  if (a.kind !== 'allowed') return { reason: a.reason, needsApproval: true };
  for (const c of calls) if (!isDeviceCall(c)) approval.allowances.allow(c.name, deps.registry.get(c.name)?.targets?.(c.args));
  return undefined;
}

/**
 * Sends an approved restore: the topology first (deleted nodes need no restore; started nodes
 * can be configured), the devices after. Returns the topology's errors (empty: it is back).
 */
export async function sendRestore(
  calls: DispatchCall[],
  topology: TopologyPlan,
  deps: RestoreDeps,
  approval: ApprovalContext,
  o: { mode: CopilotMode; interactive: boolean; refusalText: (r: ApprovalRefusal) => string },
): Promise<string[]> {
  const { registry, ctx } = deps;
  const errors: string[] = [];
  // Every call goes through the one dispatch (gate, approval, execution), in the order a restore needs.
  const dispatch = async (batch: DispatchCall[]): Promise<ToolResult[]> => {
    if (batch.length === 0) return [];
    const out = await dispatchFromCli(batch, {
      registry,
      approval,
      mode: o.mode,
      ctx,
      wordRefusal: o.refusalText,
      maxParallel: 4,
      // the person approving sees what each restore would do to the device as it is now
      ...(o.interactive ? { previewer: capturePreviewer((signal) => ({ ...ctx, signal })) } : {}),
    });
    out.results.forEach((r, i) => {
      if (r.status !== 'success' && !isDeviceCall(batch[i]!)) errors.push(`${batch[i]!.name}: ${r.display ?? r.output.slice(0, 200)}`);
    });
    return out.results;
  };
  const project = asGns3Project(await ctx.project());
  for (const l of topology.delete_links) {
    try {
      await project.call('DELETE', `/links/${l.link_id}`, { signal: ctx.signal });
    } catch (err) {
      errors.push(`delete link ${l.label}: ${errorMessage(err)}`);
    }
  }
  for (const n of topology.delete_nodes) {
    try {
      await project.call('DELETE', `/nodes/${n.node_id}`, { signal: ctx.signal });
    } catch (err) {
      errors.push(`delete node ${n.name}: ${errorMessage(err)}`);
    }
  }
  if (topology.delete_links.length + topology.delete_nodes.length > 0) project.invalidate();
  // power and names one after the other (a v3 server renames only a stopped node), filters together
  for (const call of calls.filter((c) => !isDeviceCall(c) && !c.id.startsWith('rewind-filter-'))) await dispatch([call]);
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
  await dispatch(calls.filter(isDeviceCall));
  return errors;
}

/**
 * After a restore: every device that was planned is captured again and compared with what it
 * was restored to (`sources`, by report name): `restored`, or `remaining` with the lines that
 * still differ, or `error` when it cannot be read. `words` name the restore (`the rewind`) and
 * its target (`the checkpoint`) in those messages.
 */
export async function verifyRestored(
  devices: DeviceReport[],
  sources: Map<string, PlanSource>,
  ctx: ToolContext,
  words: { restore: string; target: string },
): Promise<void> {
  const planned = devices.filter((d) => d.status === 'planned');
  const again = await captureDevices(
    planned.map((d) => d.name),
    ctx,
  );
  for (const d of planned) {
    const cap = again.get(d.name);
    if (cap?.config === undefined) {
      d.status = 'error';
      d.error = `cannot capture ${d.name} after ${words.restore}: ${cap?.error ?? 'no answer'}`;
      continue;
    }
    const left = planDevice(sources.get(d.name)!, cap);
    d.remaining = left.remaining;
    d.status = left.status === 'unchanged' ? 'restored' : 'remaining';
    if (d.status === 'remaining') d.error = `${d.remaining.length} line(s) still differ from ${words.target}`;
  }
}

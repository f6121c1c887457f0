/**
 * Applying placed scenarios exactly as the agent applies a fault in inject mode: the
 * injection tool (execute_multiple_device_config_commands, or manage_gns3_packet_filter
 * `set` for a link) with the `fault` argument, through the one dispatch with the `cli`
 * caller — the mode gate, the approval policy and the approver (`--yes`) — so the tool
 * admits the fault to the ledger (one open fault per category on a target), applies it
 * and records it with its restore and repair check. The ledger's owner is the project's
 * CLI session (./cli-session.ts) unless the caller names one.
 */
import type { Approver } from '../core/api.js';
import type { Fault } from '../faults/store.js';
import { cliApproval, cliRefusalText, dispatchFromCli } from '../tools/cli-dispatch.js';
import type { DispatchCall } from '../tools/dispatch.js';
import type { ToolResult } from '../tools/types.js';
import { cliCheckpointer, cliSession, cliSessionId } from './cli-session.js';
import type { Placement } from './fit.js';
import { faultStoreOf, type InjectLab } from './lab.js';

export interface ApplyOptions {
  /** who approves (`--yes`: allow once); absent: nobody can, every call is refused and the plan stands */
  approver?: Approver | undefined;
  /** the session the faults are recorded under (default: the project's CLI session) */
  sessionId?: string | undefined;
  /** the request line of this run in the session's log (default: what is injected where) */
  requestText?: string | undefined;
}

export type InjectOutcome =
  | { status: 'injected'; placement: Placement; fault: Fault; warning?: string }
  | { status: 'blocked'; placement: Placement; reason: string; needsApproval: boolean }
  | { status: 'error'; placement: Placement; reason: string };

const INJECT_MODE = 'troubleshooting_injection' as const;

/** The injection tool call that applies a placement, with the fault argument the ledger reads. */
export function injectionCall(p: Placement, n = 0): DispatchCall {
  const fault = { scenario: p.scenario.id, ...(Object.keys(p.values).length > 0 ? { parameters: p.values } : {}) };
  if (p.target.kind === 'link')
    return {
      id: `inject-${n + 1}-${p.scenario.id}`,
      name: 'manage_gns3_packet_filter',
      args: { link: p.target.link_id, action: 'set', filters: p.applied, fault },
    };
  return {
    id: `inject-${n + 1}-${p.scenario.id}`,
    name: 'execute_multiple_device_config_commands',
    args: { device_configs: [{ device_name: p.target.name, config_commands: p.applied }], fault },
  };
}

/** `ospf_hello_interval_mismatch on R1, link_packet_loss_30 on R1:e0 <-> R2:e0` */
export function placementsText(ps: readonly Placement[]): string {
  return ps.map((p) => `${p.scenario.id} on ${p.target.kind === 'device' ? p.target.name : p.target.label}`).join(', ');
}

function reasonOf(r: ToolResult): string {
  try {
    const j = JSON.parse(r.output) as { error?: unknown };
    if (typeof j.error === 'string') return j.error;
  } catch {
    // not JSON: the display line says it
  }
  return r.display ?? r.output;
}

function faultIdOf(r: ToolResult): number | undefined {
  try {
    const id = (JSON.parse(r.output) as { fault?: { id?: unknown } }).fault?.id;
    return typeof id === 'number' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** Applies the placements of one project in one batch; one outcome per placement, in order. */
export async function applyPlacements(lab: InjectLab, placements: readonly Placement[], o: ApplyOptions = {}): Promise<InjectOutcome[]> {
  const store = faultStoreOf(lab.sessions);
  // a run nobody approves records nothing: the CLI session is created only when a fault may be
  const sessionId =
    o.sessionId ??
    (o.approver ? cliSession(lab.sessions, lab.settings.server, lab.project) : cliSessionId(lab.settings.server, lab.project.projectId));
  // the running configurations the plan read: the tool's own-values read reuses them (no second console round)
  const configs = new Map(
    placements.flatMap((p) => (p.target.kind === 'device' && p.config ? [[p.target.name.toLowerCase(), p.config]] : [])),
  );
  const ctx = { ...lab.ctx, mode: INJECT_MODE, faults: { sessionId, store, configs } };
  const calls = placements.map(injectionCall);
  const checkpoints = await cliCheckpointer(
    lab.sessions,
    sessionId,
    o.requestText ?? `inject --scenario: ${placementsText(placements)}`,
    () => lab.ctx,
  );
  const out = await dispatchFromCli(calls, {
    registry: lab.registry,
    approval: cliApproval({
      policy: lab.settings.approve === 'never' ? 'never' : 'ask',
      approvalTools: lab.settings.approval_tools,
      interactive: false,
      ...(o.approver ? { approver: o.approver } : {}),
    }),
    mode: INJECT_MODE,
    ctx,
    wordRefusal: cliRefusalText('inject', 'rerun with --yes to apply this plan'),
    maxParallel: 4,
    checkpoints,
  });
  return placements.map((placement, i): InjectOutcome => {
    const r = out.results[i]!;
    if (r.status === 'blocked') return { status: 'blocked', placement, reason: reasonOf(r), needsApproval: out.approvalBlocked > 0 };
    const id = faultIdOf(r);
    const fault = id !== undefined ? store.get(id) : undefined;
    if (!fault) return { status: 'error', placement, reason: reasonOf(r) };
    return { status: 'injected', placement, fault, ...(r.status === 'partial' ? { warning: r.display ?? 'some lines failed' } : {}) };
  });
}

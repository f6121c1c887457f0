/**
 * Checkpoints for one approved batch of tool calls (src/tools/dispatch.ts calls this
 * after the gate and the approvals, before any call of the batch runs): the
 * configuration of every device a call changes, captured once per device for the whole
 * batch and in parallel (./capture.ts), and the topology before-state of what the
 * topology-changing calls touch, with what they created once the batch has run.
 * A capture that fails is reported, never thrown: the change still runs.
 */
import type { Topology } from '../gns3/types.js';
import type { ToolTargets } from '../core/targets.js';
import { errorMessage } from '../errors.js';
import { captureDevices, type CaptureContext } from './capture.js';
import type { CheckpointStore } from './store.js';
import type { Capture, TopologyBefore } from './types.js';

export interface BatchCall {
  id: string;
  /** the tool's name */
  name: string;
  targets: ToolTargets;
}

/** A device the batch changes and whether its checkpoint was kept. */
export interface DeviceCheckpointReport {
  device: string;
  /** the first call of the batch that changes it (the checkpoint is tied to it) */
  callId: string;
  /** the stored checkpoint's id (CheckpointStore.saveDevice): what a rewind of this call restores */
  checkpoint?: number;
  /** why there is no checkpoint (absent: saved) */
  error?: string;
}

export interface BatchCheckpoints {
  devices: DeviceCheckpointReport[];
  /** records what the topology calls created; call once the batch has run */
  after: () => Promise<void>;
}

/**
 * What the dispatch needs: take the checkpoints of a batch before it runs. `known`: devices
 * read moments ago for an approval preview (nothing of the batch has run since), kept instead of reading them again.
 */
export type Checkpointer = (calls: BatchCall[], signal: AbortSignal, known?: ReadonlyMap<string, Capture>) => Promise<BatchCheckpoints>;

export interface CheckpointerOptions {
  store: CheckpointStore;
  sessionId: string;
  /** the number of the request running now (CheckpointStore.currentRequestNo); `calls`: the batch it checkpoints */
  requestNo(calls: BatchCall[]): number;
  context(signal: AbortSignal): CaptureContext;
}

const NOTHING: BatchCheckpoints = { devices: [], after: async () => undefined };

export function sessionCheckpointer(o: CheckpointerOptions): Checkpointer {
  return async (calls, signal, known) => {
    const owner = new Map<string, string>();
    for (const c of calls)
      if (c.targets.changesConfig) for (const d of c.targets.devices ?? []) if (!owner.has(d.name)) owner.set(d.name, c.id);
    const topoCalls = calls.filter((c) => c.targets.changesTopology);
    if (owner.size === 0 && topoCalls.length === 0) return NOTHING;
    const ctx = o.context(signal);
    const requestNo = o.requestNo(calls);
    const readAt = new Date();
    const [captures, before] = await Promise.all([
      captureUnknown([...owner.keys()], ctx, known),
      topoCalls.length ? topology(ctx, signal) : Promise.resolve(undefined),
    ]);
    const devices: DeviceCheckpointReport[] = [];
    for (const [device, callId] of owner) {
      const c = captures.get(device) ?? { error: 'not captured' };
      let error = c.config === undefined ? (c.error ?? 'no configuration captured') : undefined;
      let checkpoint: number | undefined;
      try {
        checkpoint = o.store.saveDevice({ session_id: o.sessionId, request_no: requestNo, call_id: callId, device, ...c });
      } catch (err) {
        error = `cannot store it: ${errorMessage(err)}`;
      }
      devices.push({ device, callId, ...(error ? { error } : { checkpoint }) });
    }
    if (!before || 'error' in before) {
      if (before) for (const c of topoCalls) devices.push({ device: 'topology', callId: c.id, error: before.error });
      return { devices, after: async () => undefined };
    }
    const callId = topoCalls[0]!.id;
    const touched = touchedBefore(before.topology, topoCalls);
    return {
      devices,
      after: async () => {
        const now = await topology(ctx, signal);
        const created =
          'topology' in now
            ? {
                nodes: now.topology.nodes.filter((n) => !before.topology.nodes.some((b) => b.node_id === n.node_id)).map((n) => n.node_id),
                links: now.topology.links.filter((l) => !before.topology.links.some((b) => b.link_id === l.link_id)).map((l) => l.link_id),
              }
            : { nodes: [], links: [] };
        try {
          o.store.saveTopology({
            session_id: o.sessionId,
            request_no: requestNo,
            call_id: callId,
            before: touched,
            created,
            read_at: readAt,
          });
        } catch (err) {
          ctx.log.warn('topology checkpoint not stored', { error: errorMessage(err) });
        }
      },
    };
  };
}

/** Captures the devices not in `known`; the result holds every device asked for. */
async function captureUnknown(names: string[], ctx: CaptureContext, known?: ReadonlyMap<string, Capture>): Promise<Map<string, Capture>> {
  const out = await captureDevices(
    names.filter((n) => known?.get(n)?.config === undefined),
    ctx,
  );
  for (const n of names) {
    const k = known?.get(n);
    if (k?.config !== undefined) out.set(n, k);
  }
  return out;
}

async function topology(ctx: CaptureContext, signal: AbortSignal): Promise<{ topology: Topology } | { error: string }> {
  try {
    return { topology: await (await ctx.project()).getTopology(signal) };
  } catch (err) {
    return { error: `cannot read the topology: ${errorMessage(err)}` };
  }
}

/** The nodes and links the calls name, as they are now (ids, names, status, filters). */
function touchedBefore(t: Topology, calls: BatchCall[]): TopologyBefore {
  const nodeNames = new Set<string>();
  const linkRefs: string[] = [];
  for (const c of calls) {
    for (const n of c.targets.nodes ?? []) if (n.name) nodeNames.add(n.name.toLowerCase());
    for (const l of c.targets.links ?? []) linkRefs.push(l.a, ...(l.b ? [l.b] : []));
  }
  const nodes = t.nodes
    .filter((n) => nodeNames.has(n.name.toLowerCase()) || nodeNames.has(n.node_id.toLowerCase()))
    .map((n) => ({ node_id: n.node_id, name: n.name, status: n.status }));
  // a link named by id, or by its nodes ("R1 e0", "R1:e0 R2:e0", "R1 R2"): keep every link that joins named nodes
  const refText = linkRefs.join(' ').toLowerCase();
  const links = t.links
    .filter(
      (l) =>
        refText.includes(l.link_id.toLowerCase()) ||
        (l.ends.length > 0 && l.ends.every((e) => refText.includes(e.node_name.toLowerCase()))),
    )
    .map((l) => ({ link_id: l.link_id, filters: l.filters, suspend: l.suspend }));
  return { nodes, links };
}

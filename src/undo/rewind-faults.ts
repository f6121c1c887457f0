/**
 * A rewind of an inject session and the fault ledger: the session's open faults that
 * the rewind undid are marked restored, as `faults restore` would mark them.
 *
 * A fault is undone when the rewind put its device (or link) back at a checkpoint
 * taken before the fault was applied, and the device is verified back there:
 * - a device fault: the device's rewind status is `restored` (captured again, no diff
 *   left to its checkpoint) and the fault was injected at or after that checkpoint —
 *   the checkpoint of a device is taken before the first call of a request changes it,
 *   so a fault of an earlier request is part of the state rewound to and stays open;
 * - a link fault: the topology rewind set the link's filters back and completed
 *   (`restored`), and the fault was injected at or after the link's checkpoint.
 * Either way it was injected at or after the start of request `to` (when the session's
 * requests say when it started). A device not fully restored, one the rewind did not
 * touch (`unchanged`: a fix by hand is `faults check`'s to find) or a rewind that was
 * refused or only planned marks nothing. A rewind resumed after it died half way also
 * counts the devices and links already put back by the run that died (`unchanged` now).
 *
 * The other way round, a fault the ledger calls restored comes back when the rewind puts
 * its device (or link) back at a checkpoint taken after the fault was applied and before
 * it was restored — rewinding a rewind, or rewinding past a `faults restore` — and is
 * open again.
 */
import { FaultStore, type Fault } from '../faults/store.js';
import type { CheckpointStore } from '../checkpoints/store.js';
import type { DeviceCheckpoint, TopologyCheckpoint } from '../checkpoints/types.js';

/** What a rewind reported (./rewind.ts RewindReport): per device its status, the topology's status and the filters it set back. */
export interface RewindOutcome {
  devices: { name: string; status: string }[];
  topology: { status: string; filters: { link_id: string }[] };
  resumed?: boolean;
}

export interface UndoneInputs {
  /** the session's open faults */
  open: Fault[];
  outcome: RewindOutcome;
  /** per device, the checkpoint it was rewound to (CheckpointStore.devicesAt) */
  deviceCheckpoints: DeviceCheckpoint[];
  /** the topology checkpoints from the rewind point on, oldest first (none when the rewind was limited to devices) */
  topologyCheckpoints: TopologyCheckpoint[];
  /** when request `to` started, if the session's requests know it (ISO time) */
  requestStart?: string | undefined;
}

const key = (name: string) => name.toLowerCase();

/**
 * When the rewind put a fault's target back at its checkpoint: that checkpoint's time, or
 * undefined when the target is not verified back there.
 */
function checkpointBackAt(i: Omit<UndoneInputs, 'open'>): (f: Fault) => string | undefined {
  const { outcome } = i;
  const back = (status: string) => status === 'restored' || (outcome.resumed === true && status === 'unchanged');
  const devices = new Map(outcome.devices.map((d) => [key(d.name), d]));
  const checkpoints = new Map(i.deviceCheckpoints.map((c) => [key(c.device), c]));
  const linkBack = new Set(outcome.topology.filters.map((f) => f.link_id));
  const topologyBack = outcome.topology.status === 'restored' || (outcome.resumed === true && outcome.topology.status === 'unchanged');
  // the first checkpoint of each link from the rewind point on: the filters the rewind set back
  const linkSince = new Map<string, string>();
  for (const c of i.topologyCheckpoints)
    for (const l of c.before.links) if (!linkSince.has(l.link_id)) linkSince.set(l.link_id, c.created_at);
  return (f) => {
    if (f.target_kind === 'device') {
      const d = devices.get(key(f.target));
      const cp = checkpoints.get(key(f.target));
      return d !== undefined && back(d.status) && cp !== undefined && cp.config !== null ? cp.created_at : undefined;
    }
    const link = f.restore.args.link;
    if (typeof link !== 'string' || !topologyBack) return undefined;
    // a link whose filters the rewind set back, or (resumed) that the run which died set back already
    const undone = linkBack.has(link) || (outcome.resumed === true && outcome.topology.status === 'unchanged');
    return undone ? linkSince.get(link) : undefined;
  };
}

/** The open faults the rewind undid (pure). */
export function faultsUndone(i: UndoneInputs): Fault[] {
  const backAt = checkpointBackAt(i);
  return i.open.filter((f) => {
    if (i.requestStart !== undefined && f.injected_at < i.requestStart) return false;
    const since = backAt(f);
    return since !== undefined && f.injected_at >= since;
  });
}

/** The restored faults the rewind brought back: applied before the checkpoint it went back to, restored after it (pure). */
export function faultsBroughtBack(i: Omit<UndoneInputs, 'open'> & { restored: Fault[] }): Fault[] {
  const backAt = checkpointBackAt(i);
  return i.restored.filter((f) => {
    const since = backAt(f);
    return since !== undefined && f.restored_at !== null && f.injected_at < since && f.restored_at >= since;
  });
}

/**
 * Brings the ledger to what the rewind did: the session's open faults it undid are marked
 * restored, the restored ones it brought back are open again. Their ids, oldest first.
 */
export function markFaultsUndone(
  store: CheckpointStore,
  o: { sessionId: string; to: number; devices?: string[] | undefined; checkpoints?: number[] | undefined },
  outcome: RewindOutcome,
): { restored: number[]; reopened: number[] } {
  const ledger = new FaultStore(store.db);
  // `session` matches by prefix: keep this session's faults only, then split by state
  const faults = ledger.list({ session: o.sessionId }).filter((f) => f.session_id === o.sessionId);
  const open = faults.filter((f) => f.state === 'open');
  const restored = faults.filter((f) => f.state === 'restored_unfixed');
  if (open.length === 0 && restored.length === 0) return { restored: [], reopened: [] };
  const at = {
    outcome,
    deviceCheckpoints: o.checkpoints ? store.devicesByIds(o.sessionId, o.checkpoints) : store.devicesAt(o.sessionId, o.to, o.devices),
    topologyCheckpoints: o.devices || o.checkpoints ? [] : store.topologyFrom(o.sessionId, o.to),
  };
  const undone = faultsUndone({ ...at, open, requestStart: store.requests(o.sessionId).find((r) => r.no === o.to)?.created_at });
  const back = faultsBroughtBack({ ...at, restored });
  const now = new Date();
  return {
    restored: undone.map((f) => ledger.markRestored(f.id, now).id),
    reopened: back.map((f) => ledger.reopen(f.id).id),
  };
}

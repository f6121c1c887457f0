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
 */
import { FaultStore, type Fault } from '../faults/store.js';
import type { CheckpointStore } from './store.js';
import type { DeviceCheckpoint, TopologyCheckpoint } from './types.js';

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

/** The open faults the rewind undid (pure). */
export function faultsUndone(i: UndoneInputs): Fault[] {
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

  return i.open.filter((f) => {
    if (i.requestStart !== undefined && f.injected_at < i.requestStart) return false;
    if (f.target_kind === 'device') {
      const d = devices.get(key(f.target));
      const cp = checkpoints.get(key(f.target));
      return d !== undefined && back(d.status) && cp !== undefined && cp.config !== null && f.injected_at >= cp.created_at;
    }
    const link = f.restore.args.link;
    if (typeof link !== 'string' || !topologyBack) return false;
    const since = linkSince.get(link);
    // a link whose filters the rewind set back, or (resumed) that the run which died set back already
    const undone = linkBack.has(link) || (outcome.resumed === true && outcome.topology.status === 'unchanged');
    return since !== undefined && undone && f.injected_at >= since;
  });
}

/** Marks the session's open faults the rewind undid as restored; their ids, oldest first. */
export function markFaultsUndone(
  store: CheckpointStore,
  o: { sessionId: string; to: number; devices?: string[] | undefined },
  outcome: RewindOutcome,
): number[] {
  const ledger = new FaultStore(store.db);
  const open = ledger.list({ session: o.sessionId, state: 'open' }).filter((f) => f.session_id === o.sessionId);
  if (open.length === 0) return [];
  const undone = faultsUndone({
    open,
    outcome,
    deviceCheckpoints: store.devicesAt(o.sessionId, o.to, o.devices),
    topologyCheckpoints: o.devices ? [] : store.topologyFrom(o.sessionId, o.to),
    requestStart: store.requests(o.sessionId).find((r) => r.no === o.to)?.created_at,
  });
  const at = new Date();
  return undone.map((f) => ledger.markRestored(f.id, at).id);
}

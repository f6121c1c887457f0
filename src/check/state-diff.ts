/**
 * The operational differences between two reads of a device (src/check/state.ts), the way
 * `genie diff` shows them: per device, what was added, lost or changed among its interfaces
 * (state and addresses), OSPF neighbours, BGP peers and selected routes. Unlike a
 * verification's regressions this lists every difference, better or worse; `diff --state`
 * prints it beside the configuration diff.
 */
import type { DeviceState } from './state.js';

export type StateKind = 'interface' | 'ospf_neighbor' | 'bgp_peer' | 'route';

export interface StateChange {
  kind: StateKind;
  /** the interface name, neighbour router id, peer address or prefix */
  what: string;
  /** absent: added */
  before?: string;
  /** absent: lost */
  after?: string;
}

export interface DeviceStateDiff {
  device: string;
  added: StateChange[];
  lost: StateChange[];
  changed: StateChange[];
}

/** One device's state as flat `kind → what → text` maps, the form the comparison needs. */
function flat(s: DeviceState): Record<StateKind, Record<string, string>> {
  const interfaces: Record<string, string> = {};
  for (const [name, i] of Object.entries(s.interfaces)) interfaces[name] = [i.state, ...[...i.addresses].sort()].join(' ');
  return { interface: interfaces, ospf_neighbor: s.ospf, bgp_peer: s.bgp, route: s.routes };
}

const KINDS: StateKind[] = ['interface', 'ospf_neighbor', 'bgp_peer', 'route'];

/** Every difference of `after` from `before` (the same device), in kind order then name order. */
export function diffState(before: DeviceState, after: DeviceState): DeviceStateDiff {
  const out: DeviceStateDiff = { device: before.device, added: [], lost: [], changed: [] };
  const b = flat(before);
  const a = flat(after);
  for (const kind of KINDS) {
    const names = [...new Set([...Object.keys(b[kind]), ...Object.keys(a[kind])])].sort((x, y) =>
      x.localeCompare(y, 'en', { numeric: true }),
    );
    for (const what of names) {
      const was = b[kind][what];
      const now = a[kind][what];
      if (was === now) continue;
      if (was === undefined) out.added.push({ kind, what, after: now! });
      else if (now === undefined) out.lost.push({ kind, what, before: was });
      else out.changed.push({ kind, what, before: was, after: now });
    }
  }
  return out;
}

/** Whether the diff says anything. */
export const stateDiffEmpty = (d: DeviceStateDiff) => d.added.length + d.lost.length + d.changed.length === 0;

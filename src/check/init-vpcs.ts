/**
 * What `check --init` writes for VPCS PCs: each PC's address (a `command` check on
 * `show ip`, the whole `IP/MASK` line expected) and a ping between PCs that are linked —
 * directly or through switches and hubs — and share a network, the reachability a link
 * fault or a wrong address breaks.
 */
import type { Topology } from '../gns3/types.js';
import { parseVpcsShowIp } from './parse.js';
import type { CheckInput } from './schema.js';

/** Nodes that forward frames without an address of their own: PCs behind them share a link. */
const LAYER2 = new Set(['ethernet_switch', 'ethernet_hub']);

/** The address check of one PC, and its address for the pings; nothing for a PC without one. */
export function vpcsAddressCheck(device: string, showIp: string | undefined): { check: CheckInput; address: string } | undefined {
  const ip = showIp === undefined ? undefined : parseVpcsShowIp(showIp);
  if (!ip) return undefined;
  return {
    check: { name: `${device} has ${ip.address}`, command: { device, run: 'show ip', expect: { contains: ip.line } } },
    address: ip.address,
  };
}

const toInt = (ip: string) => ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);

/** Whether two `a.b.c.d/len` addresses are in one network (same prefix length, same network bits). */
export function sameNetwork(a: string, b: string): boolean {
  const [ipA, lenA] = a.split('/') as [string, string];
  const [ipB, lenB] = b.split('/') as [string, string];
  if (lenA !== lenB) return false;
  const len = Number(lenA);
  const size = 2 ** (32 - len);
  return Math.floor(toInt(ipA) / size) === Math.floor(toInt(ipB) / size);
}

/** The nodes each node reaches over links, passing through switches and hubs (not through anything else). */
function layer2Neighbours(t: Topology, from: string): Set<string> {
  const type = new Map(t.nodes.map((n) => [n.name, n.node_type]));
  const seen = new Set([from]);
  const reached = new Set<string>();
  const queue = [from];
  while (queue.length > 0) {
    const at = queue.shift()!;
    for (const l of t.links) {
      const names = l.ends.map((e) => e.node_name);
      if (!names.includes(at)) continue;
      for (const next of names) {
        if (seen.has(next)) continue;
        seen.add(next);
        reached.add(next);
        if (LAYER2.has(type.get(next) ?? '')) queue.push(next);
      }
    }
  }
  return reached;
}

/** One ping per pair of linked PCs in one network, from the first in the project's order to the other's address. */
export function pcPings(t: Topology, addresses: Map<string, string>): CheckInput[] {
  const pcs = t.nodes.map((n) => n.name).filter((n) => addresses.has(n));
  const checks: CheckInput[] = [];
  for (const [i, a] of pcs.entries()) {
    const near = layer2Neighbours(t, a);
    for (const b of pcs.slice(i + 1)) {
      const [ipA, ipB] = [addresses.get(a)!, addresses.get(b)!];
      if (near.has(b) && sameNetwork(ipA, ipB)) checks.push({ ping: { from: a, to: ipB.split('/')[0]! } });
    }
  }
  return checks;
}

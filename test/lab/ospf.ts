/**
 * OSPF on the test lab's FRR routers: the config-mode lines that bring every link of a router into
 * area 0, and the wait for the converged state a test may assert on.
 */
import { parseIosRoutes } from '../../src/check/parse.js';
import type { Lab } from './lab.js';

export interface OspfOptions {
  /** all routers in order: router-id 10.255.255.<n> for the n-th */
  routers: string[];
  /** networks to add to area 0 besides the lab's links and loopbacks */
  networks?: string[];
  /** put before each line inside a block (' ' gives running-config style) */
  indent?: string;
  /**
   * Accept every LSA instance as it arrives (`timers lsa min-arrival 0`). With FRR's default of
   * 1 s, a router drops an instance that follows the previous one within the second, and its
   * neighbour sends it again only after the 5 s retransmit interval: a three-router lab then takes
   * ~16 s to converge instead of ~1.5 s. Tests that are about how long flooding takes keep the default.
   */
  quickFlooding?: boolean;
}

/** Every link of `router` in area 0 as point-to-point with fast hellos (1 s, dead 4 s). */
export function ospfAreaZero(lab: Lab, router: string, o: OspfOptions): string[] {
  const inner = (line: string) => `${o.indent ?? ''}${line}`;
  const ifaces = lab.links.flatMap((l) => (l.a === router ? [l.aInterface] : l.b === router ? [l.bInterface] : []));
  const networks = ['10.0.0.0/16', '10.255.255.0/24', ...(o.networks ?? [])];
  return [
    'router ospf',
    inner(`ospf router-id 10.255.255.${o.routers.indexOf(router) + 1}`),
    ...networks.map((n) => inner(`network ${n} area 0`)),
    ...(o.quickFlooding ? [inner('timers lsa min-arrival 0')] : []),
    'exit',
    ...ifaces.flatMap((f) => [
      `interface ${f}`,
      ...['ip ospf network point-to-point', 'ip ospf hello-interval 1', 'ip ospf dead-interval 4'].map(inner),
      'exit',
    ]),
  ];
}

export interface ConvergedOptions {
  /** the PCs' LANs are in OSPF too (a `networks` entry covering 192.168.0.0/16) */
  pcLans?: boolean;
}

/** A prefix some routers announce, at the cost their stub adds (a loopback 0, a LAN or a link 10). */
interface Announced {
  prefix: string;
  owners: string[];
  stubCost: number;
}

const COST = 10; // every lab link's OSPF cost (FRR's default for its 10G veths is the reference)

function lanPrefix(cidr: string): string {
  const [addr, len] = cidr.split('/') as [string, string];
  const bits = Number(len);
  const n = addr.split('.').reduce((v, o) => (v << 8) | Number(o), 0) >>> 0;
  const net = bits === 0 ? 0 : (n & ((0xffffffff << (32 - bits)) >>> 0)) >>> 0;
  return `${[24, 16, 8, 0].map((s) => (net >>> s) & 255).join('.')}/${bits}`;
}

/** Hop counts from `from` to every router over the lab's router–router links. */
function hops(lab: Lab, routers: string[], from: string): Map<string, number> {
  const dist = new Map([[from, 0]]);
  for (let frontier = [from]; frontier.length > 0;) {
    const next: string[] = [];
    for (const r of frontier)
      for (const l of lab.links) {
        const other = l.a === r ? l.b : l.b === r ? l.a : undefined;
        if (other === undefined || !routers.includes(other) || dist.has(other)) continue;
        dist.set(other, dist.get(r)! + 1);
        next.push(other);
      }
    frontier = next;
  }
  return dist;
}

/**
 * What is not yet as a converged OSPF lab has it, one line each (empty once converged): every
 * router with all its neighbours Full, and an installed OSPF route to every prefix another router
 * announces (loopbacks, links, the PCs' LANs) at the shortest path's cost over every equal-cost next
 * hop — the state no later SPF run changes, so whatever a test reads from the lab next stays true.
 */
export function ospfUnconverged(lab: Lab, routers: string[], o: ConvergedOptions = {}): string[] {
  const announced: Announced[] = [
    ...routers.map((r) => ({ prefix: lab.loopbacks[r]!, owners: [r], stubCost: 0 })),
    ...lab.links
      .filter((l) => routers.includes(l.a) && routers.includes(l.b))
      .map((l) => ({ prefix: l.network, owners: [l.a, l.b], stubCost: COST })),
    ...(o.pcLans ? lab.pcs.map((p) => ({ prefix: lanPrefix(p.routerAddress), owners: [p.router], stubCost: COST })) : []),
  ];
  const dist = new Map(routers.map((r) => [r, hops(lab, routers, r)]));
  const cost = (from: string, a: Announced) => Math.min(...a.owners.map((w) => COST * (dist.get(from)!.get(w) ?? Infinity) + a.stubCost));
  const missing: string[] = [];
  for (const r of routers) {
    const links = lab.links.flatMap((l) =>
      l.a === r && routers.includes(l.b)
        ? [{ peer: l.b, via: l.bAddress.split('/')[0]! }]
        : l.b === r && routers.includes(l.a)
          ? [{ peer: l.a, via: l.aAddress.split('/')[0]! }]
          : [],
    );
    const full = lab
      .vtysh(r, 'show ip ospf neighbor')
      .split('\n')
      .filter((l) => /\bFull\//.test(l)).length;
    if (full !== links.length) missing.push(`${r}: ${full} of ${links.length} neighbours Full`);
    const rows = parseIosRoutes(lab.vtysh(r, 'show ip route')) ?? [];
    for (const a of announced.filter((x) => !x.owners.includes(r))) {
      const metric = cost(r, a);
      const vias = links
        .filter((l) => COST + cost(l.peer, a) === metric)
        .map((l) => l.via)
        .sort();
      const row = rows.find((x) => x.prefix === a.prefix && x.protocol === 'ospf' && x.selected);
      const want = `${a.prefix} [110/${metric}] via ${vias.join(', ')}`;
      if (!row) missing.push(`${r}: no OSPF route to ${a.prefix} (want ${want})`);
      else if (!row.line.includes(`[110/${metric}]`) || [...row.via].sort().join(', ') !== vias.join(', '))
        missing.push(`${r}: ${row.prefix} ${/\[\d+\/\d+\]/.exec(row.line)?.[0] ?? ''} via ${row.via.join(', ')} (want ${want})`);
    }
  }
  return missing;
}

/**
 * Waits until OSPF has converged (see ospfUnconverged), polling the routers out of band; throws
 * naming what is still missing when `timeoutMs` (a bound for a loaded machine) runs out, so a
 * test never goes on to assert on a lab still converging.
 */
export async function waitForOspfConverged(lab: Lab, routers: string[], timeoutMs: number, o: ConvergedOptions = {}): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const missing = ospfUnconverged(lab, routers, o);
    if (missing.length === 0) return;
    if (Date.now() >= deadline) throw new Error(`OSPF did not converge within ${timeoutMs} ms:\n${missing.join('\n')}`);
    await new Promise((res) => setTimeout(res, 300));
  }
}

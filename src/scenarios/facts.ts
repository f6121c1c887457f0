/**
 * What a device is like right now, for filling a scenario's parameters: its platform,
 * interfaces and addresses, OSPF neighbours, BGP peers, routes and running configuration.
 * Read-only, with the readers of `check --init` (src/check/parse.ts) through the device
 * engine; `factsOf` turns the outputs into facts and is pure.
 */
import { runDeviceJobs } from '../devices/engine.js';
import type { DevicePool } from '../devices/pool.js';
import type { PlatformName } from '../devices/drivers.js';
import { resolveTarget } from '../devices/target.js';
import type { CommandResult } from '../devices/types.js';
import type { Settings } from '../config/schema.js';
import type { Topology } from '../gns3/types.js';
import type { Logger } from '../log.js';
import {
  maskLength,
  parseBgpSummary,
  parseFrrInterfaceBrief,
  parseIosInterfaceBrief,
  parseIosRoutes,
  parseLinuxInterfaces,
  parseLinuxRoutes,
  parseOspfNeighbors,
  type BgpRow,
  type InterfaceRow,
  type NeighborRow,
  type RouteRow,
} from '../check/parse.js';
import { configBlocks } from './config-match.js';

export interface DeviceFacts {
  name: string;
  platform: PlatformName | undefined;
  /** addresses in prefix form (10.0.1.1/24) on every platform */
  interfaces: InterfaceRow[];
  ospfNeighbors: NeighborRow[];
  bgpPeers: BgpRow[];
  routes: RouteRow[];
  /** the running configuration (FRR, IOS), `show ip` on VPCS */
  config: string | undefined;
  /** why nothing could be read (an unreachable console, a stopped node) */
  error?: string;
}

/** The read-only commands whose output makes a device's facts. */
export function factCommands(p: PlatformName | undefined): string[] {
  if (p === 'linux') return ['ip -o link show', 'ip -o addr show', 'ip route show'];
  if (p === 'vpcs') return ['show ip'];
  if (p === 'frr') return ['show interface brief', 'show ip ospf neighbor', 'show ip bgp summary', 'show ip route', 'show running-config'];
  if (p === 'cisco_ios')
    return ['show ip interface brief', 'show ip ospf neighbor', 'show ip bgp summary', 'show ip route', 'show running-config'];
  return [];
}

/** IOS shows no prefix length in its brief view: the `ip address A M` lines of the configuration give it. */
function iosPrefixes(rows: InterfaceRow[], config: string | undefined): InterfaceRow[] {
  if (!config) return rows;
  const byName = new Map<string, string[]>();
  for (const b of configBlocks(config)) {
    const m = /^interface\s+(\S+)/i.exec(b.head);
    if (!m) continue;
    const addrs = b.body.flatMap((l) => {
      const a = /^ip address (\d+\.\d+\.\d+\.\d+) (\d+\.\d+\.\d+\.\d+)/.exec(l);
      const len = a ? maskLength(a[2]!) : undefined;
      return a && len !== undefined ? [`${a[1]}/${len}`] : [];
    });
    byName.set(m[1]!.toLowerCase(), addrs);
  }
  return rows.map((r) => {
    const full = byName.get(r.name.toLowerCase());
    return full && full.length > 0 ? { ...r, addresses: full } : r;
  });
}

/** A device's facts from the outputs of factCommands (undefined: the command failed). */
export function factsOf(name: string, platform: PlatformName | undefined, out: (command: string) => string | undefined): DeviceFacts {
  const facts: DeviceFacts = { name, platform, interfaces: [], ospfNeighbors: [], bgpPeers: [], routes: [], config: undefined };
  if (platform === 'linux') {
    const [l, a, r] = factCommands('linux').map(out);
    if (l !== undefined && a !== undefined) facts.interfaces = parseLinuxInterfaces(l, a) ?? [];
    if (r !== undefined) facts.routes = parseLinuxRoutes(r);
    return facts;
  }
  if (platform === 'vpcs') {
    facts.config = out('show ip');
    const addr = facts.config && /^\s*IP\/MASK\s*:\s*(\d+\.\d+\.\d+\.\d+\/\d+)/im.exec(facts.config)?.[1];
    if (addr && !addr.startsWith('0.0.0.0')) facts.interfaces = [{ name: 'eth0', state: 'up', addresses: [addr], line: addr }];
    return facts;
  }
  if (platform !== 'frr' && platform !== 'cisco_ios') return facts;
  facts.config = out('show running-config');
  const brief = out(platform === 'frr' ? 'show interface brief' : 'show ip interface brief');
  const rows = brief !== undefined ? ((platform === 'frr' ? parseFrrInterfaceBrief(brief) : parseIosInterfaceBrief(brief)) ?? []) : [];
  facts.interfaces = platform === 'cisco_ios' ? iosPrefixes(rows, facts.config) : rows;
  const ospf = out('show ip ospf neighbor');
  if (ospf !== undefined) facts.ospfNeighbors = parseOspfNeighbors(ospf);
  const bgp = out('show ip bgp summary');
  if (bgp !== undefined) facts.bgpPeers = parseBgpSummary(bgp) ?? [];
  const routes = out('show ip route');
  if (routes !== undefined) facts.routes = parseIosRoutes(routes) ?? [];
  return facts;
}

export interface FactsContext {
  settings: Settings;
  pool: DevicePool;
  signal?: AbortSignal | undefined;
  log?: Logger | undefined;
}

/** Reads the facts of some devices of the topology, in parallel; a device that cannot be read has `error`. */
export async function readDeviceFacts(topology: Topology, names: readonly string[], o: FactsContext): Promise<DeviceFacts[]> {
  const empty = (name: string, platform: PlatformName | undefined, error: string): DeviceFacts => ({
    ...factsOf(name, platform, () => undefined),
    error,
  });
  const jobs = await Promise.all(
    names.map(async (name) => {
      const r = resolveTarget(topology, name, o.settings);
      if (!r.ok) return { name, error: r.error };
      let platform = r.target.platform;
      if (!platform) {
        try {
          platform = (await o.pool.acquire(r.target, o.signal)).platform;
        } catch (err) {
          return { name: r.target.name, error: `cannot read ${r.target.name}: ${(err as Error).message.split('\n')[0]}` };
        }
      }
      return { name: r.target.name, platform, target: { ...r.target, platform } };
    }),
  );
  const runnable = jobs.flatMap((j) => ('target' in j && j.target ? [j] : []));
  const results = await runDeviceJobs(
    runnable.map((j) => ({ device_name: j.name, resolved: { ok: true as const, target: j.target }, commands: factCommands(j.platform) })),
    { mode: 'read', settings: o.settings, pool: o.pool, ...(o.signal ? { signal: o.signal } : {}), ...(o.log ? { log: o.log } : {}) },
  );
  const byName = new Map(runnable.map((j, i) => [j.name, results[i]!]));
  return jobs.map((j) => {
    if (!('target' in j) || !j.target) return empty(j.name, undefined, 'error' in j && j.error ? j.error : 'cannot be read');
    const r = byName.get(j.name)!;
    const byCommand = new Map<string, CommandResult>(r.results.map((c) => [c.command, c]));
    const out = (c: string) => (byCommand.get(c)?.status === 'success' ? byCommand.get(c)!.output : undefined);
    const facts = factsOf(j.name, j.platform, out);
    const failed = r.error !== undefined || r.results.every((c) => c.status !== 'success');
    return failed ? { ...facts, error: r.error ?? r.results[0]?.error ?? `cannot read ${j.name}` } : facts;
  });
}

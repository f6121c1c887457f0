/**
 * `check --init`: a check file describing the lab as it is now (nodes and their
 * status, links without a filter, interface addresses, OSPF/BGP neighbours, the
 * routers' routes, VPCS PCs' addresses and pings between linked PCs), the
 * instructor's starting point to edit. Read-only, through the same engine.
 */
import { Document } from 'yaml';
import { runDeviceJobs, type DeviceJob } from '../devices/engine.js';
import { runLimited } from '../core/run-limited.js';
import { resolveTarget } from '../devices/target.js';
import type { PlatformName } from '../devices/drivers.js';
import type { CommandResult } from '../devices/types.js';
import { familyOf } from './plan.js';
import {
  parseBgpSummary,
  parseFrrInterfaceBrief,
  parseIosInterfaceBrief,
  parseIosRoutes,
  parseLinuxInterfaces,
  parseLinuxRoutes,
  parseOspfNeighbors,
  type InterfaceRow,
  type RouteRow,
} from './parse.js';
import type { RunChecksOptions } from './run.js';
import type { CheckInput } from './schema.js';
import { pcPings, vpcsAddressCheck } from './init-vpcs.js';
import { flowChecks } from './stages.js';

/** What `check --init` (and a change's baseline, ./state.ts) reads from a device of this platform. */
export function stateCommands(p: PlatformName): string[] {
  if (p === 'vpcs') return ['show ip'];
  if (p === 'linux') return ['ip -o link show', 'ip -o addr show', 'ip route show'];
  if (p === 'frr') return ['show interface brief', 'show ip ospf neighbor', 'show ip bgp summary', 'show ip route'];
  return ['show ip interface brief', 'show ip ospf neighbor', 'show ip bgp summary', 'show ip route'];
}

function deviceChecks(device: string, p: PlatformName, out: (c: string) => string | undefined): CheckInput[] {
  const checks: CheckInput[] = [];
  let ifaces: InterfaceRow[] | undefined;
  let routes: RouteRow[] | undefined;
  if (p === 'linux') {
    const [l, a, r] = ['ip -o link show', 'ip -o addr show', 'ip route show'].map(out);
    if (l !== undefined && a !== undefined) ifaces = parseLinuxInterfaces(l, a);
    if (r !== undefined) routes = parseLinuxRoutes(r);
  } else {
    const brief = out(p === 'frr' ? 'show interface brief' : 'show ip interface brief');
    if (brief !== undefined) ifaces = p === 'frr' ? parseFrrInterfaceBrief(brief) : parseIosInterfaceBrief(brief);
    const r = out('show ip route');
    if (r !== undefined) routes = parseIosRoutes(r);
  }
  for (const i of ifaces ?? []) {
    if (i.addresses.length === 0 || (i.name === 'lo' && p === 'linux')) continue;
    checks.push({ interface: { device, name: i.name, state: i.state === 'up' ? 'up' : 'down', ip: i.addresses[0]! } });
  }
  if (p !== 'linux') {
    const ospf = out('show ip ospf neighbor');
    for (const n of ospf !== undefined ? parseOspfNeighbors(ospf) : [])
      checks.push({ ospf_neighbor: { device, neighbor: n.id, state: n.state } });
    const bgp = out('show ip bgp summary');
    for (const b of (bgp !== undefined ? parseBgpSummary(bgp) : undefined) ?? [])
      checks.push({ bgp_peer: { device, peer: b.peer, state: b.state } });
  }
  const protocols = new Set(['ospf', 'bgp', 'static', 'rip', 'isis', 'eigrp']);
  const seen = new Set<string>();
  for (const r of routes ?? []) {
    if (!r.selected || !protocols.has(r.protocol) || seen.has(r.prefix)) continue;
    seen.add(r.prefix);
    checks.push({ route: { device, prefix: r.prefix, protocol: r.protocol as 'ospf', ...(r.via.length === 1 ? { via: r.via[0]! } : {}) } });
  }
  return checks;
}

/** The checks describing the live lab, in file order: nodes, links, then each device's state. */
export async function describeLab(opts: RunChecksOptions): Promise<{ project: string; checks: CheckInput[] }> {
  const topology = await opts.project.getTopology(opts.signal);
  const checks: CheckInput[] = topology.nodes.map((n) => ({
    node: { name: n.name, status: n.status as 'started' },
  }));
  for (const l of topology.links) {
    const [a, b] = l.ends;
    // clean: no filter and not suspended, as a lab is meant to be (a link fault breaks exactly that)
    if (a && b) checks.push({ link: { a: `${a.node_name}:${a.port_name}`, b: `${b.node_name}:${b.port_name}`, clean: true } });
  }
  const devices = topology.nodes.filter((n) => n.status === 'started' && n.console_type === 'telnet' && n.console);
  const targets = devices.map((n) => resolveTarget(topology, n.name, opts.settings)).flatMap((r) => (r.ok ? [r.target] : []));
  const platforms = await runLimited(targets, opts.settings.device_concurrency, async (t) => {
    try {
      return (await opts.pool.acquire(t, opts.signal)).platform;
    } catch {
      return undefined; // an unreachable console adds no device checks; its node check still records it
    }
  });
  const jobs: DeviceJob[] = [];
  targets.forEach((t, i) => {
    const p = platforms[i];
    if (!p || (familyOf(p) !== 'ios' && p !== 'linux' && p !== 'vpcs')) return;
    jobs.push({ device_name: t.name, resolved: { ok: true, target: { ...t, platform: p } }, commands: stateCommands(p) });
  });
  const results = await runDeviceJobs(jobs, {
    mode: 'read',
    settings: opts.settings,
    pool: opts.pool,
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.log ? { log: opts.log } : {}),
  });
  const pcAddresses = new Map<string, string>();
  for (const [i, r] of results.entries()) {
    const byCommand = new Map<string, CommandResult>(r.results.map((c) => [c.command, c]));
    const out = (c: string) => (byCommand.get(c)?.status === 'success' ? byCommand.get(c)!.output : undefined);
    const job = jobs[i]!;
    const platform = job.resolved.ok ? (job.resolved.target.platform ?? 'frr') : 'frr';
    if (platform === 'vpcs') {
      const pc = vpcsAddressCheck(job.device_name, out('show ip'));
      if (pc) {
        checks.push(pc.check);
        pcAddresses.set(job.device_name, pc.address);
      }
    } else checks.push(...deviceChecks(job.device_name, platform, out));
  }
  checks.push(...pcPings(topology, pcAddresses));
  return { project: topology.project_name, checks };
}

/** YAML text with one check per line (`- interface: {device: R1, name: eth0, …}`). */
export function checkFileYaml(file: { project: string; checks: CheckInput[] }): string {
  const doc = new Document(file);
  flowChecks(doc.get('checks', true));
  return `# written by gns3-copilot check --init from the live lab: edit freely\n${doc.toString({ lineWidth: 0 })}`;
}

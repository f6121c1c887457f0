/**
 * A device's operational state as the checks read it (interfaces with state and address, OSPF
 * and BGP neighbours, selected routes), for verifying a change against a baseline: read with
 * the commands and parsers `check --init` uses, one console round per device, read-only
 * through the device engine; two states compared into regressions (something of the baseline
 * missing or worse now) and intended differences (what the change's own lines name).
 */
import { runDeviceJobs, type DeviceJob } from '../devices/engine.js';
import type { DevicePool } from '../devices/pool.js';
import { resolveTarget } from '../devices/target.js';
import type { PlatformName } from '../devices/drivers.js';
import type { Settings } from '../config/schema.js';
import type { Topology } from '../gns3/types.js';
import type { Logger } from '../log.js';
import { runLimited } from '../core/run-limited.js';
import type { VerificationFinding } from '../core/verification.js';
import { errorMessage } from '../errors.js';
import { parseBgpSummary, parseFrrInterfaceBrief, parseIosInterfaceBrief, parseIosRoutes, parseOspfNeighbors } from './parse.js';
import { stateCommands } from './init.js';

export interface DeviceState {
  device: string;
  /** name → "up 10.0.1.1/24" (state, then addresses) */
  interfaces: Record<string, { state: string; addresses: string[] }>;
  /** router id → state (Full, 2-Way, …) */
  ospf: Record<string, string>;
  /** peer → state (Established, Active, …) */
  bgp: Record<string, string>;
  /** selected routes learnt from a protocol or connected: prefix → protocol */
  routes: Record<string, string>;
  /** the state could not be read: why (no verdict can come from it) */
  error?: string;
}

/** Something of a baseline that is missing or worse now: the verification's finding (one shape for both). */
export type Regression = VerificationFinding;

export interface StateReadContext {
  topology: Topology;
  settings: Settings;
  pool: DevicePool;
  signal?: AbortSignal;
  log?: Logger;
}

const ROUTE_PROTOCOLS = new Set(['connected', 'ospf', 'bgp', 'static', 'rip', 'isis', 'eigrp']);

/** The platforms the state readers know (the others' verification is `error`, never `pass`). */
export const hasStateReaders = (platform: PlatformName): boolean => platform === 'frr' || platform === 'cisco_ios';

export const unreadState = (device: string, error: string): DeviceState => ({
  device,
  interfaces: {},
  ospf: {},
  bgp: {},
  routes: {},
  error,
});

/** A device's state from the answers to stateCommands(platform) (`out`: a command's output, undefined when it failed). */
export function stateOf(device: string, platform: PlatformName, out: (c: string) => string | undefined): DeviceState {
  const s: DeviceState = { device, interfaces: {}, ospf: {}, bgp: {}, routes: {} };
  const brief = out(platform === 'frr' ? 'show interface brief' : 'show ip interface brief');
  const rows = brief === undefined ? undefined : platform === 'frr' ? parseFrrInterfaceBrief(brief) : parseIosInterfaceBrief(brief);
  if (!rows) return { ...s, error: `cannot read the interfaces of ${device}` };
  for (const r of rows) s.interfaces[r.name] = { state: r.state, addresses: r.addresses };
  const ospf = out('show ip ospf neighbor');
  for (const n of ospf !== undefined ? parseOspfNeighbors(ospf) : []) s.ospf[n.id] = n.state;
  const bgp = out('show ip bgp summary');
  for (const b of (bgp !== undefined ? parseBgpSummary(bgp) : undefined) ?? []) s.bgp[b.peer] = b.state;
  const routes = out('show ip route');
  for (const r of (routes !== undefined ? parseIosRoutes(routes) : undefined) ?? [])
    if (r.selected && ROUTE_PROTOCOLS.has(r.protocol)) s.routes[r.prefix] = r.protocol;
  return s;
}

export const noReaders = (platform: string) => `no state readers for ${platform} devices`;

/** The state of every device, in parallel; a device without readers or unreachable carries `error`. */
export async function readStates(devices: readonly string[], c: StateReadContext): Promise<DeviceState[]> {
  const empty = unreadState;
  const jobs = await runLimited([...devices], c.settings.device_concurrency, async (d): Promise<DeviceJob | DeviceState> => {
    const resolved = resolveTarget(c.topology, d, c.settings);
    if (!resolved.ok) return empty(d, resolved.error);
    try {
      const platform = (await c.pool.acquire(resolved.target, c.signal)).platform;
      if (!hasStateReaders(platform)) return empty(d, noReaders(platform));
      return { device_name: d, resolved: { ok: true, target: { ...resolved.target, platform } }, commands: stateCommands(platform) };
    } catch (err) {
      return empty(d, `cannot reach ${d}: ${errorMessage(err).split('\n')[0]}`);
    }
  });
  const toRun = jobs.filter((j): j is DeviceJob => 'resolved' in j);
  const results = await runDeviceJobs(toRun, {
    mode: 'read',
    settings: c.settings,
    pool: c.pool,
    ...(c.signal ? { signal: c.signal } : {}),
    ...(c.log ? { log: c.log } : {}),
  });
  return jobs.map((j) => {
    if (!('resolved' in j)) return j;
    const r = results[toRun.indexOf(j)]!;
    if (r.status === 'error') return empty(j.device_name, r.error ?? `cannot read ${j.device_name}`);
    const byCommand = new Map(r.results.map((x) => [x.command, x]));
    const out = (cmd: string) => (byCommand.get(cmd)?.status === 'success' ? byCommand.get(cmd)!.output : undefined);
    return stateOf(j.device_name, j.resolved.ok && j.resolved.target.platform ? j.resolved.target.platform : 'frr', out);
  });
}

/** The devices linked directly to any of `devices` (their neighbours in the topology), not themselves. */
export function linkedNeighbours(topology: Topology, devices: readonly string[]): string[] {
  const touched = new Set(devices.map((d) => d.toLowerCase()));
  const out: string[] = [];
  for (const l of topology.links) {
    const names = l.ends.map((e) => e.node_name);
    if (!names.some((n) => touched.has(n.toLowerCase()))) continue;
    for (const n of names) if (!touched.has(n.toLowerCase()) && !out.includes(n)) out.push(n);
  }
  return out;
}

/** Two reads are the same state (for settling: stable when two reads in a row agree). */
export const sameStates = (a: readonly DeviceState[], b: readonly DeviceState[]): boolean => JSON.stringify(a) === JSON.stringify(b);

/** An interface, an OSPF adjacency or a BGP session differs: the change moved what routing protocols flood. */
export const routingMoved = (before: readonly DeviceState[], after: readonly DeviceState[]): boolean =>
  before.some((b, i) => {
    const a = after[i];
    return !a || JSON.stringify([b.interfaces, b.ospf, b.bgp]) !== JSON.stringify([a.interfaces, a.ospf, a.bgp]);
  });

const ifaceText = (i: { state: string; addresses: string[] } | undefined) => (i ? [i.state, ...i.addresses].join(' ') : 'absent');

/** What of `before` is missing or worse in `after`, per device. */
export function regressionsOf(before: DeviceState, after: DeviceState): Regression[] {
  const out: Regression[] = [];
  const device = before.device;
  for (const [name, b] of Object.entries(before.interfaces)) {
    const a = after.interfaces[name];
    if (b.state === 'up' && a?.state !== 'up')
      out.push({ device, kind: 'interface', what: name, before: ifaceText(b), after: ifaceText(a) });
    else
      for (const addr of b.addresses)
        if (!a?.addresses.includes(addr))
          out.push({ device, kind: 'address', what: `${name} ${addr}`, before: ifaceText(b), after: ifaceText(a) });
  }
  for (const [id, st] of Object.entries(before.ospf))
    if (/^full$/i.test(st) && !/^full$/i.test(after.ospf[id] ?? ''))
      out.push({ device, kind: 'ospf_neighbor', what: id, before: st, after: after.ospf[id] ?? 'absent' });
  for (const [peer, st] of Object.entries(before.bgp))
    if (st === 'Established' && after.bgp[peer] !== 'Established')
      out.push({ device, kind: 'bgp_peer', what: peer, before: st, after: after.bgp[peer] ?? 'absent' });
  for (const [prefix, proto] of Object.entries(before.routes))
    if (!(prefix in after.routes)) out.push({ device, kind: 'route', what: prefix, before: proto, after: 'absent' });
  return out;
}

/**
 * Whether the change stated this difference: one of the device's own lines names what went
 * (`shutdown` under `interface eth0`, `no network 10.0.1.0/24 area 0`, `no neighbor 10.0.0.2`).
 */
export function intendedBy(r: Regression, commands: readonly string[] | undefined): boolean {
  if (!commands?.length) return false;
  const text = commands.join('\n').toLowerCase();
  const what = r.what.split(' ')[0]!.toLowerCase();
  if (r.kind === 'interface' || r.kind === 'address') return new RegExp(`^\\s*interface\\s+${escape(what)}\\s*$`, 'm').test(text);
  if (r.kind === 'route') return new RegExp(`^\\s*no\\s.*${escape(what)}`, 'm').test(text);
  return new RegExp(`^\\s*no\\s.*${escape(what)}`, 'm').test(text);
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

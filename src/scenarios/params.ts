/**
 * A scenario's parameters for one device, without an LLM: what the user set (`--set`),
 * then what the device's running configuration says (./config-match.ts: the restore lines
 * are the healthy state), then its facts (./facts.ts: interfaces, neighbours, routes), then
 * values made up where the scenario only needs something unused (an AS, an address from a
 * documentation range). Nothing resolvable: the parameter and why. Pure.
 */
import { sameInterface } from '../check/parse.js';
import { fillPlaceholders, type InjectionScenario } from '../skills/schema.js';
import { matchConfig, placeholdersOf, type Values } from './config-match.js';
import type { DeviceFacts } from './facts.js';
import { contains, dottedMask, parseCidr, spareHost, upperHalf } from './ipv4.js';

/** The placeholders the scenario's lines and repair check use on this platform (`device` is the target's name). */
export function neededParameters(s: InjectionScenario, platform: string): string[] {
  const texts = [...(s.inject?.[platform] ?? []), ...(s.restore?.[platform] ?? []), JSON.stringify(s.repair_check ?? {})];
  return placeholdersOf(texts).filter((n) => n !== 'device');
}

export type ParamResult = { ok: true; values: Values; lines: string[] } | { ok: false; parameter: string; why: string };

interface Ctx {
  facts: DeviceFacts;
  platform: string;
  values: Values;
}

const isLoopback = (name: string) => /^(lo|loopback)\d*$/i.test(name);

/** Lower is better: an interface facing a neighbour, then one up with an address, then the rest. */
export function interfaceRank(f: DeviceFacts, name: string | undefined): number {
  const row = name ? f.interfaces.find((i) => sameInterface(i.name, name)) : undefined;
  if (!row) return 5;
  if (isLoopback(row.name)) return 4;
  if (row.state !== 'up') return 3;
  if (row.addresses.length === 0) return 2;
  const peers = [...f.ospfNeighbors.map((n) => n.address), ...f.bgpPeers.map((p) => p.peer)];
  const faces = row.addresses.some((a) => {
    const c = parseCidr(a);
    return c !== undefined && peers.some((p) => contains(c, p));
  });
  return faces ? 0 : 1;
}

const natural = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true });

function addressOf(c: Ctx): string | undefined {
  const row = c.facts.interfaces.find((i) => c.values.interface !== undefined && sameInterface(i.name, c.values.interface));
  const first = (row ?? (c.platform === 'vpcs' ? c.facts.interfaces[0] : undefined))?.addresses[0];
  const cidr = first ? parseCidr(first) : undefined;
  if (!cidr) return undefined;
  return c.platform === 'cisco_ios' ? dottedMask(cidr) : first;
}

type Resolver = (c: Ctx) => string | undefined;

/** Values read from the device's facts, or made up where any unused value will do. */
const FROM_FACTS: Record<string, Resolver> = {
  interface: (c) =>
    c.facts.interfaces
      .filter((i) => interfaceRank(c.facts, i.name) <= 1)
      .sort((a, b) => interfaceRank(c.facts, a.name) - interfaceRank(c.facts, b.name) || natural(a.name, b.name))[0]?.name,
  address: addressOf,
  loopback: (c) =>
    c.platform === 'frr' ? 'lo' : c.facts.interfaces.map((i) => i.name).find((n) => /^loopback\d+$/i.test(n) || /^lo\d+$/i.test(n)),
  peer_ip: (c) => {
    const own = c.facts.interfaces.find((i) => c.values.interface !== undefined && sameInterface(i.name, c.values.interface));
    const nets = (own?.addresses ?? []).flatMap((a) => parseCidr(a) ?? []);
    const peers = [...c.facts.ospfNeighbors.map((n) => n.address), ...c.facts.bgpPeers.map((p) => p.peer)];
    return peers.find((p) => nets.some((n) => contains(n, p))) ?? peers[0];
  },
  duplicate_router_id: (c) => c.facts.ospfNeighbors[0]?.id,
  neighbor: (c) => c.facts.bgpPeers[0]?.peer ?? /^\s*neighbor (\d+\.\d+\.\d+\.\d+) remote-as /m.exec(c.facts.config ?? '')?.[1],
  gateway: (c) => (c.platform === 'vpcs' ? /^\s*GATEWAY\s*:\s*(\d+\.\d+\.\d+\.\d+)/im.exec(c.facts.config ?? '')?.[1] : undefined),
  host_prefix: (c) => {
    const learned = c.facts.routes
      .filter((r) => r.selected && ['ospf', 'static', 'bgp', 'rip', 'eigrp'].includes(r.protocol))
      .flatMap((r) => parseCidr(r.prefix) ?? [])
      .filter((p) => p.len >= 8 && p.len <= 30)
      .sort((a, b) => natural(a.address, b.address) || a.len - b.len);
    const half = learned[0] ? upperHalf(learned[0]) : undefined;
    if (!half) return undefined;
    return c.platform === 'cisco_ios' ? dottedMask(half) : `${half.address}/${half.len}`;
  },
  // RFC 5398 keeps 64496-64511 for documentation: no lab peers with it
  wrong_as: (c) => ['64496', '64497', '64498'].find((a) => a !== c.values.local_as && a !== c.values.remote_as),
  // TEST-NET-1 (RFC 5737) is never a lab's subnet: the same host in another subnet
  wrong_address: (c) => {
    const a = c.values.address ? parseCidr(c.values.address) : undefined;
    return a ? `192.0.2.${a.address.split('.')[3]}/24` : undefined;
  },
  wrong_gateway: (c) => {
    const a = c.values.address ? parseCidr(c.values.address) : undefined;
    return a ? spareHost(a, [a.address, c.values.gateway ?? '']) : undefined;
  },
  wrong_vlan: (c) => (c.values.vlan === '999' ? '998' : '999'),
};

/** What some values must look like, whatever line of the configuration offered them. */
const SHAPE: Record<string, (v: string) => boolean> = { loopback: isLoopback };
const shapely = (values: Values) => Object.entries(values).every(([k, v]) => SHAPE[k]?.(v) ?? true);

/** Fills what the candidate lacks from the facts, in the order the scenario names its parameters. */
function complete(candidate: Values, needed: string[], facts: DeviceFacts, platform: string): { values: Values; missing?: string } {
  const values = { ...candidate };
  for (const name of needed) {
    if (values[name] !== undefined) continue;
    const v = FROM_FACTS[name]?.({ facts, platform, values });
    if (v === undefined) return { values, missing: name };
    values[name] = v;
  }
  return { values };
}

export interface ParamInput {
  scenario: InjectionScenario;
  platform: string;
  facts: DeviceFacts;
  /** values the user gave (`--set`); names the scenario does not use here are ignored */
  set?: Values;
}

export function resolveParameters(i: ParamInput): ParamResult {
  const { scenario: s, platform, facts } = i;
  const needed = neededParameters(s, platform);
  const given: Values = Object.fromEntries(Object.entries(i.set ?? {}).filter(([k]) => needed.includes(k)));
  const restore = s.restore?.[platform] ?? [];
  const fromConfig = facts.config !== undefined && platform !== 'vpcs' ? matchConfig(restore, facts.config, platform, given) : undefined;
  const candidates = [...(fromConfig?.ok ? fromConfig.candidates.filter(shapely) : []), given];
  const done = candidates
    .map((c) => complete(c, needed, facts, platform))
    .map((r, order) => ({ ...r, order, rank: interfaceRank(facts, r.values.interface) }));
  const best = done.filter((d) => !d.missing).sort((a, b) => a.rank - b.rank || a.order - b.order)[0];
  if (best) {
    const values = Object.fromEntries(needed.map((n) => [n, best.values[n]!]));
    return { ok: true, values, lines: (s.inject?.[platform] ?? []).map((l) => fillPlaceholders(l, values)) };
  }
  // the first candidate got furthest: the configuration's values, then the facts
  const missing = done[0]!.missing!;
  return { ok: false, parameter: missing, why: whyMissing(s, missing, facts, fromConfig) };
}

/** Why a parameter has no value on this device, and how to give it one. */
function whyMissing(
  s: InjectionScenario,
  name: string,
  facts: DeviceFacts,
  fromConfig: ReturnType<typeof matchConfig> | undefined,
): string {
  const description = s.parameters.find((p) => p.name === name)?.description;
  const head = `no value for ${name}${description ? ` (${description})` : ''}`;
  const set = `set it with --set ${name}=VALUE`;
  if (facts.error) return `${head}: ${facts.name} could not be read (${facts.error}); ${set}`;
  if (fromConfig && !fromConfig.ok && fromConfig.line.includes(`{{${name}}}`))
    return `${head}: ${facts.name}'s running configuration has no "${fromConfig.line}"; ${set}`;
  if (name === 'interface') return `${head}: ${facts.name} has no interface that is up with an address; ${set}`;
  return `${head}: nothing on ${facts.name} gives it; ${set}`;
}

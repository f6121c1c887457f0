/**
 * Which scenarios fit a lab, where, and why the others do not: a device scenario fits a
 * device of one of its platforms whose parameters resolve (./params.ts); a link scenario
 * (a GNS3 link filter) fits every link that carries no filter yet. The level, the
 * difficulty asked for and the scenarios the project's ledger has used already narrow
 * it. Pure: the lab comes in as its topology and the devices' facts.
 */
import type { Settings } from '../config/schema.js';
import { LEVEL_DIFFICULTIES } from '../faults/spec.js';
import type { Topology, TopologyLink } from '../gns3/types.js';
import type { InjectionScenario } from '../skills/schema.js';
import type { Values } from './config-match.js';
import type { DeviceFacts } from './facts.js';
import { resolveParameters } from './params.js';

export type ScenarioTarget =
  { kind: 'device'; name: string; platform: string } | { kind: 'link'; link_id: string; label: string; ends: [string, string] };

/** A scenario placed on a target, ready to apply: the lines (or filters) with their values. */
export interface Placement {
  scenario: InjectionScenario;
  target: ScenarioTarget;
  values: Values;
  /** configuration lines (device), or the link filters to set (link) */
  applied: string[] | Record<string, unknown>;
  /** the device's running configuration as the placement read it (FRR, IOS): its own values for the restore */
  config?: string;
}

export type PlaceResult = { ok: true; placement: Placement } | { ok: false; parameter?: string; why: string };

export function placeOnDevice(s: InjectionScenario, facts: DeviceFacts, set: Values = {}): PlaceResult {
  if (s.target !== 'device') return { ok: false, why: `${s.id} is a link fault: use --link` };
  const platform = facts.platform;
  if (!platform) return { ok: false, why: `${facts.name}: ${facts.error ?? 'its platform is unknown'}` };
  if (!s.platforms.includes(platform) || !s.inject?.[platform])
    return { ok: false, why: `${facts.name} is ${platform}; ${s.id} is for ${s.platforms.join(', ')}` };
  const r = resolveParameters({ scenario: s, platform, facts, set });
  if (!r.ok) return { ok: false, parameter: r.parameter, why: `${facts.name}: ${r.why}` };
  return {
    ok: true,
    placement: {
      scenario: s,
      target: { kind: 'device', name: facts.name, platform },
      values: r.values,
      applied: r.lines,
      ...(facts.config !== undefined && (platform === 'frr' || platform === 'cisco_ios') ? { config: facts.config } : {}),
    },
  };
}

/** A link of the topology as a target, or undefined when it does not join two nodes. */
export function linkTarget(l: TopologyLink): Extract<ScenarioTarget, { kind: 'link' }> | undefined {
  const [a, b] = l.ends;
  if (!a || !b) return undefined;
  const ends: [string, string] = [`${a.node_name}:${a.port_name}`, `${b.node_name}:${b.port_name}`];
  return { kind: 'link', link_id: l.link_id, label: `${ends[0]} <-> ${ends[1]}`, ends };
}

export function placeOnLink(s: InjectionScenario, l: TopologyLink): PlaceResult {
  if (s.target !== 'link') return { ok: false, why: `${s.id} is a device fault: use --device` };
  const target = linkTarget(l);
  if (!target) return { ok: false, why: `link ${l.link_id} does not join two nodes` };
  const filters = Object.entries(l.filters ?? {});
  if (filters.length > 0)
    return { ok: false, why: `the link carries filters already (${filters.map(([k, v]) => `${k} ${v.join('/')}`).join(', ')})` };
  return { ok: true, placement: { scenario: s, target, values: {}, applied: s.link_filter ?? {} } };
}

export interface FitOptions {
  /** the inject_level setting: difficulties above it never fit */
  level: Settings['inject_level'];
  /** only scenarios of this difficulty (`inject --random --level`) */
  difficulty?: 'easy' | 'medium' | 'hard' | undefined;
  /** scenario id → the ledger's fault ids that used it in this project */
  used?: ReadonlyMap<string, number[]>;
  allowRepeat?: boolean;
  set?: Values;
}

/** Why a scenario is out before any target is looked at, or undefined. */
export function excluded(s: InjectionScenario, o: FitOptions): string | undefined {
  const offered = LEVEL_DIFFICULTIES[o.level];
  if (!offered.includes(s.difficulty)) return `${s.difficulty}: inject_level ${o.level} offers ${offered.join(', ')} faults only`;
  if (o.difficulty && s.difficulty !== o.difficulty) return `${s.difficulty}, not ${o.difficulty}`;
  const used = o.used?.get(s.id);
  if (used && used.length > 0 && !o.allowRepeat)
    return `used in this project already (fault ${used.map((id) => `#${id}`).join(', ')}); --allow-repeat to use it again`;
  return undefined;
}

export interface ScenarioFit {
  id: string;
  title: string;
  category: string;
  difficulty: string;
  target: 'device' | 'link';
  /** every target it fits, with its values */
  fits: Placement[];
  /** why it fits nowhere (absent when it fits) */
  reason?: string;
}

export interface LabFacts {
  topology: Topology;
  /** the devices' facts (missing devices are not considered) */
  devices: readonly DeviceFacts[];
}

/** Every scenario of the library against the lab: where it fits, or why nowhere. */
export function fitScenarios(scenarios: Iterable<InjectionScenario>, lab: LabFacts, o: FitOptions): ScenarioFit[] {
  const devices = [...lab.devices].sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }));
  const links = [...lab.topology.links].sort((a, b) => (linkTarget(a)?.label ?? '').localeCompare(linkTarget(b)?.label ?? ''));
  return [...scenarios]
    .sort((a, b) => a.id.localeCompare(b.id))
    .map((s) => {
      const head = { id: s.id, title: s.title, category: s.category, difficulty: s.difficulty, target: s.target };
      const out = excluded(s, o);
      if (out) return { ...head, fits: [], reason: out };
      const tries = s.target === 'link' ? links.map((l) => placeOnLink(s, l)) : devices.map((d) => placeOnDevice(s, d, o.set));
      const fits = tries.flatMap((t) => (t.ok ? [t.placement] : []));
      if (fits.length > 0) return { ...head, fits };
      return { ...head, fits, reason: noFitReason(s, devices, tries) };
    });
}

function noFitReason(s: InjectionScenario, devices: readonly DeviceFacts[], tries: PlaceResult[]): string {
  if (s.target === 'link') return tries.length === 0 ? 'no link in the lab' : 'every link carries filters already';
  const onPlatform = devices.flatMap((d, i) => (d.platform && s.platforms.includes(d.platform) ? [tries[i]!] : []));
  if (onPlatform.length === 0) {
    const seen = [...new Set(devices.map((d) => d.platform ?? 'unknown'))].join(', ') || 'none';
    return `no ${s.platforms.join(' or ')} device in the lab (platforms: ${seen})`;
  }
  const first = onPlatform.find((t) => !t.ok) as Extract<PlaceResult, { ok: false }>;
  return `${first.why}${onPlatform.length > 1 ? ` (and ${onPlatform.length - 1} more device${onPlatform.length > 2 ? 's' : ''} of its platforms)` : ''}`;
}

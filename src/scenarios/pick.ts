/**
 * `inject --random N`: N scenarios that fit the lab, drawn with a seeded generator so one
 * seed gives the same picks on the same lab and ledger (a class gets the same faults; a
 * replay of a plan applies what it showed). Each scenario is drawn once, then a target for
 * it; one open fault per category on a target, as the ledger wants. Devices' facts are read
 * only for the targets tried (`factsOf`), so a 100-device lab is not read whole.
 */
import { createHash } from 'node:crypto';
import type { Topology } from '../gns3/types.js';
import type { InjectionScenario } from '../skills/schema.js';
import type { DeviceFacts } from './facts.js';
import { excluded, linkTarget, placeOnDevice, placeOnLink, type FitOptions, type Placement } from './fit.js';
import { platformHint } from '../devices/target.js';

/** A generator of numbers in [0, 1) from a seed text (sha256 → sfc32): the same seed, the same sequence on every machine. */
export function seededRandom(seed: string): () => number {
  const h = createHash('sha256').update(seed).digest();
  let [a, b, c, d] = [0, 4, 8, 12].map((i) => h.readUInt32LE(i)) as [number, number, number, number];
  return () => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
}

/** Fisher–Yates with the given generator; a new array. */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

/** The key of the ledger's one-open-fault rule: a target and a category. */
export const slotKey = (target: string, category: string) => `${target.toLowerCase()}\u0000${category}`;

export interface PickOptions extends FitOptions {
  count: number;
  random: () => number;
  /** the slots of the faults open in the project's ledger (slotKey) */
  busy: ReadonlySet<string>;
  /** only this device (`--device`) or this link (`--link`, its id) */
  device?: string;
  link?: string;
  /** a device's facts, read when first needed */
  factsOf(name: string): Promise<DeviceFacts>;
}

export interface PickResult {
  picks: Placement[];
  /** scenarios that could not be placed, with why (for the report when fewer than N fit) */
  skipped: { id: string; reason: string }[];
}

/** Devices a scenario may go on, judged by the topology's platform hint before any console is read. */
function deviceCandidates(s: InjectionScenario, topology: Topology, only: string | undefined): string[] {
  return topology.nodes
    .filter((n) => (only ? n.name.toLowerCase() === only.toLowerCase() : n.status === 'started'))
    .filter((n) => {
      const hint = platformHint(n);
      return hint === undefined || s.platforms.includes(hint);
    })
    .map((n) => n.name)
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
}

export async function pickScenarios(scenarios: Iterable<InjectionScenario>, topology: Topology, o: PickOptions): Promise<PickResult> {
  const pool = [...scenarios]
    .filter((s) => (o.device ? s.target === 'device' : o.link ? s.target === 'link' : true))
    .sort((a, b) => a.id.localeCompare(b.id));
  const picks: Placement[] = [];
  const skipped: PickResult['skipped'] = [];
  const taken = new Set(o.busy);
  const links = topology.links
    .filter((l) => (o.link ? l.link_id === o.link : true))
    .sort((a, b) => (linkTarget(a)?.label ?? '').localeCompare(linkTarget(b)?.label ?? ''));
  for (const s of shuffled(pool, o.random)) {
    if (picks.length >= o.count) break;
    const out = excluded(s, o);
    if (out) {
      skipped.push({ id: s.id, reason: out });
      continue;
    }
    const placed = s.target === 'link' ? placeLink(s, links, taken, o) : await placeDevice(s, topology, taken, o);
    if (typeof placed === 'string') {
      skipped.push({ id: s.id, reason: placed });
      continue;
    }
    picks.push(placed);
    taken.add(slotKey(placed.target.kind === 'device' ? placed.target.name : placed.target.label, s.category));
  }
  return { picks, skipped };
}

function placeLink(s: InjectionScenario, links: Topology['links'], taken: Set<string>, o: PickOptions): Placement | string {
  let why = 'no link in the lab';
  for (const l of shuffled(links, o.random)) {
    const r = placeOnLink(s, l);
    if (!r.ok) why = r.why;
    else if (taken.has(slotKey(r.placement.target.kind === 'link' ? r.placement.target.label : '', s.category)))
      why = `a ${s.category} fault is open on ${r.placement.target.kind === 'link' ? r.placement.target.label : 'the link'}`;
    else return r.placement;
  }
  return why;
}

async function placeDevice(s: InjectionScenario, topology: Topology, taken: Set<string>, o: PickOptions): Promise<Placement | string> {
  const names = shuffled(deviceCandidates(s, topology, o.device), o.random);
  let why = `no ${s.platforms.join(' or ')} device in the lab`;
  for (const name of names) {
    if (taken.has(slotKey(name, s.category))) {
      why = `a ${s.category} fault is open on ${name}`;
      continue;
    }
    const r = placeOnDevice(s, await o.factsOf(name), o.set);
    if (r.ok) return r.placement;
    why = r.why;
  }
  return why;
}

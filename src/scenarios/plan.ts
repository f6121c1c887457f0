/**
 * What `inject --scenario|--random` will do on one project, before anything is sent: the
 * scenario (named, or drawn with the seed), its target and its lines with their values,
 * read from the live lab. Read-only. A request that cannot be placed is a UsageError
 * naming the scenario, the target and the parameter (exit 2; nothing is sent).
 */
import { UsageError } from '../errors.js';
import { findScenario, suggest } from '../skills/lookup.js';
import type { InjectionScenario } from '../skills/schema.js';
import type { Topology, TopologyLink } from '../gns3/types.js';
import { findNode } from '../devices/target.js';
import { poolFor } from '../devices/engine.js';
import type { Fault } from '../faults/store.js';
import type { Values } from './config-match.js';
import { readDeviceFacts, type DeviceFacts } from './facts.js';
import { excluded, linkTarget, placeOnDevice, placeOnLink, type FitOptions, type Placement } from './fit.js';
import { neededParameters } from './params.js';
import { pickScenarios, seededRandom, slotKey } from './pick.js';
import { faultStoreOf, type InjectLab } from './lab.js';

export interface InjectRequest {
  /** `--scenario ID` */
  scenario?: string | undefined;
  /** `--random N` */
  random?: number | undefined;
  device?: string | undefined;
  /** `"R1:e0-R2:e0"`, `"R1:e0 R2:e0"`, `"R1 R2"` or a link id */
  link?: string | undefined;
  set?: Values | undefined;
  /** `--random --level easy|medium|hard` */
  difficulty?: FitOptions['difficulty'];
  /** the seed of the draw (`--random`) */
  seed?: string | undefined;
  allowRepeat?: boolean | undefined;
}

export interface ProjectPlan {
  project: { id: string; name: string };
  placements: Placement[];
  /** `--random`: the seed drawn with, and the scenarios left out with why */
  seed?: string;
  skipped?: { id: string; reason: string }[];
}

/** The project's ledger as the draw needs it: the scenarios used (ids of their faults) and the open slots. */
export function ledgerState(faults: Fault[]): { used: Map<string, number[]>; busy: Set<string> } {
  const used = new Map<string, number[]>();
  const busy = new Set<string>();
  for (const f of faults) {
    if (f.scenario) used.set(f.scenario, [...(used.get(f.scenario) ?? []), f.id]);
    if (f.state === 'open') busy.add(slotKey(f.target, f.category));
  }
  return { used, busy };
}

/** A link named the way the command line names it: "A:p-B:p" (the two ends joined by a dash), "A:p B:p", "A B" or an id. */
export function findLink(topology: Topology, ref: string): TopologyLink | undefined {
  const byId = topology.links.find((l) => l.link_id === ref || (ref.length >= 8 && l.link_id.startsWith(ref)));
  if (byId) return byId;
  const end = (text: string) => {
    const [node, port] = text.trim().split(/:(?=[^:]*$)/);
    return { node: (node ?? '').toLowerCase(), port: port?.toLowerCase() };
  };
  const joins = (l: TopologyLink, a: ReturnType<typeof end>, b: ReturnType<typeof end>) => {
    const fits = (e: TopologyLink['ends'][number], x: ReturnType<typeof end>) =>
      e.node_name.toLowerCase() === x.node && (x.port === undefined || e.port_name.toLowerCase() === x.port);
    const [p, q] = l.ends;
    return !!p && !!q && ((fits(p, a) && fits(q, b)) || (fits(p, b) && fits(q, a)));
  };
  const splits: [string, string][] = [];
  const arrow = ref.split(/\s*<->\s*|\s+/);
  if (arrow.length === 2) splits.push([arrow[0]!, arrow[1]!]);
  // node names may hold dashes: every dash is a possible join of the two ends
  for (let i = ref.indexOf('-'); i > 0; i = ref.indexOf('-', i + 1)) splits.push([ref.slice(0, i), ref.slice(i + 1)]);
  for (const [a, b] of splits) {
    const hits = topology.links.filter((l) => joins(l, end(a), end(b)));
    if (hits.length === 1) return hits[0];
  }
  return undefined;
}

function scenarioNamed(lab: InjectLab, id: string): InjectionScenario {
  const s = findScenario(lab.lib, id);
  if (s) return s;
  const near = suggest([...lab.lib.injection.keys()], id);
  throw new UsageError(
    `--scenario: unknown scenario "${id}"${near.length ? ` (did you mean ${near.join(', ')}?)` : ''} (see \`gns3-copilot skills list --kind injection\`)`,
  );
}

async function factsOf(lab: InjectLab, topology: Topology, name: string): Promise<DeviceFacts> {
  const pool = poolFor(lab.ctx.services, lab.settings, lab.ctx.log);
  const [f] = await readDeviceFacts(topology, [name], { settings: lab.settings, pool, signal: lab.ctx.signal, log: lab.ctx.log });
  return f!;
}

function checkSet(s: InjectionScenario, platform: string | undefined, set: Values): void {
  const needed = platform ? neededParameters(s, platform) : s.parameters.map((p) => p.name);
  const stray = Object.keys(set).find((k) => !needed.includes(k));
  if (stray)
    throw new UsageError(
      `--set ${stray}: ${s.id} has no parameter ${stray}${platform ? ` on ${platform}` : ''} (its parameters: ${needed.join(', ') || 'none'})`,
    );
}

/** The placement of a named scenario on the named target. */
async function planNamed(lab: InjectLab, topology: Topology, req: InjectRequest, fit: FitOptions): Promise<Placement> {
  const s = scenarioNamed(lab, req.scenario!);
  const out = excluded(s, { ...fit, used: undefined });
  if (out) throw new UsageError(`${s.id}: ${out}`);
  if (s.target === 'link') {
    if (!req.link) throw new UsageError(`${s.id} is a link fault: name the link with --link "R1:e0-R2:e0"`);
    if (req.set && Object.keys(req.set).length > 0) checkSet(s, undefined, req.set);
    const l = findLink(topology, req.link);
    if (!l) throw new UsageError(`--link: no link "${req.link}" in project ${topology.project_name} (${linkList(topology)})`);
    const r = placeOnLink(s, l);
    if (!r.ok) throw new UsageError(`${s.id} on ${linkTarget(l)?.label ?? req.link}: ${r.why}`);
    return r.placement;
  }
  if (!req.device) throw new UsageError(`${s.id} is a device fault: name the device with --device NAME`);
  const node = findNode(topology, req.device);
  if (!node)
    throw new UsageError(`--device: no node named "${req.device}" in project ${topology.project_name} (nodes: ${nodeList(topology)})`);
  const facts = await factsOf(lab, topology, node.name);
  if (facts.platform) checkSet(s, s.platforms.includes(facts.platform) ? facts.platform : undefined, req.set ?? {});
  const r = placeOnDevice(s, facts, req.set);
  if (!r.ok) throw new UsageError(`${s.id} on ${node.name}: ${r.why.replace(new RegExp(`^${node.name}: `), '')}`);
  return r.placement;
}

const nodeList = (t: Topology) =>
  t.nodes
    .map((n) => n.name)
    .slice(0, 20)
    .join(', ') || 'none';
const linkList = (t: Topology) =>
  `links: ${
    t.links
      .flatMap((l) => linkTarget(l)?.label ?? [])
      .slice(0, 10)
      .join(', ') || 'none'
  }`;

/** Reads the lab and places the request's faults; throws a UsageError when nothing can be placed. */
export async function planInjection(lab: InjectLab, req: InjectRequest): Promise<ProjectPlan> {
  const topology = await lab.project.getTopology(lab.ctx.signal);
  const project = { id: lab.project.projectId, name: lab.project.projectName };
  const { used, busy } = ledgerState(faultStoreOf(lab.sessions).list({ project: project.id }));
  const fit: FitOptions = {
    level: lab.settings.inject_level,
    difficulty: req.difficulty,
    used,
    allowRepeat: req.allowRepeat === true,
    ...(req.set ? { set: req.set } : {}),
  };
  if (req.scenario !== undefined) return { project, placements: [await planNamed(lab, topology, req, fit)] };
  const seed = req.seed ?? '0';
  let link: string | undefined;
  if (req.link) {
    const l = findLink(topology, req.link);
    if (!l) throw new UsageError(`--link: no link "${req.link}" in project ${topology.project_name} (${linkList(topology)})`);
    link = l.link_id;
  }
  if (req.device && !findNode(topology, req.device))
    throw new UsageError(`--device: no node named "${req.device}" in project ${topology.project_name} (nodes: ${nodeList(topology)})`);
  const cache = new Map<string, Promise<DeviceFacts>>();
  const r = await pickScenarios(lab.lib.injection.values(), topology, {
    ...fit,
    count: req.random ?? 1,
    random: seededRandom(seed),
    busy,
    ...(req.device ? { device: req.device } : {}),
    ...(link ? { link } : {}),
    factsOf: (name) => {
      let f = cache.get(name);
      if (!f) cache.set(name, (f = factsOf(lab, topology, name)));
      return f;
    },
  });
  if (r.picks.length === 0) {
    const why = r.skipped
      .slice(0, 3)
      .map((x) => `${x.id}: ${x.reason}`)
      .join('; ');
    throw new UsageError(`no scenario fits project ${project.name}${why ? ` (${why}${r.skipped.length > 3 ? '; …' : ''})` : ''}`);
  }
  return { project, placements: r.picks, seed, skipped: r.skipped };
}

/**
 * Resolvers: the names and ids a user or the model types (project, node, link,
 * template, compute) matched against what the controller listed. Pure functions over raw
 * lists, so the client and the project both use them without importing each other.
 * Matching order everywhere: id, exact name, case-insensitive name, then a
 * unique partial match where that is safe.
 */
import { UsageError } from '../errors.js';
import { Gns3NotFoundError } from './errors.js';
import { matchPort, summarizePorts } from './ports.js';
import type { RawCompute, RawLink, RawNode, RawProject, RawTemplate } from './raw.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string): boolean => UUID.test(s.trim());

/** The first of: the item with this id, with this exact name, with this name in any case. */
function byIdOrName<T extends { name: string }>(items: T[], ref: string, id: (item: T) => string): T | undefined {
  const lower = ref.toLowerCase();
  return items.find((t) => id(t) === ref) ?? items.find((t) => t.name === ref) ?? items.find((t) => t.name.toLowerCase() === lower);
}

/** By id, or by name (case-insensitive; an exact-case match wins). Not found is a usage error. */
export function findProject(projects: RawProject[], nameOrId: string): RawProject {
  const ref = nameOrId.trim();
  const found = byIdOrName(projects, ref, (p) => p.project_id);
  if (found) return found;
  const names = projects.map((p) => p.name).sort();
  const list =
    names.length === 0 ? 'the controller has no projects' : `available: ${names.slice(0, 20).join(', ')}${names.length > 20 ? ', …' : ''}`;
  throw new UsageError(`GNS3 project "${ref}" not found (${list})`);
}

/** A node by id, name (case-insensitive; exact case wins) or an id prefix of 8+ characters. */
export function findNode(nodes: RawNode[], ref: string): RawNode {
  const r = ref.trim();
  const found =
    byIdOrName(nodes, r, (n) => n.node_id) ?? (isUuid(r) || r.length < 8 ? undefined : nodes.find((n) => n.node_id.startsWith(r)));
  if (found) return found;
  const names = nodes.map((n) => n.name).sort();
  throw new Gns3NotFoundError(
    `Node "${ref}" not found (${names.length ? `nodes: ${names.slice(0, 40).join(', ')}${names.length > 40 ? ', …' : ''}` : 'the project has no nodes'})`,
  );
}

/**
 * A link by id, or "A:e0 B:e1" / "A:e0 <-> B:e1" / "A B" (the only link
 * between A and B).
 */
export function findLink(nodes: RawNode[], links: RawLink[], ref: string): RawLink {
  const r = ref.trim();
  const byId = links.find((l) => l.link_id === r || (r.length >= 8 && !r.includes(':') && l.link_id.startsWith(r)));
  if (byId) return byId;
  const parts = r
    .replace(/<->|<=>|↔|<-->|->|--/g, ' ')
    .split(/\s+/)
    .filter((s) => s !== '');
  if (parts.length !== 2) {
    throw new Gns3NotFoundError(`Link "${ref}" not found; use a link id or "NodeA:port NodeB:port"`);
  }
  const ends = parts.map((part) => {
    const i = part.indexOf(':');
    const nodeRef = i < 0 ? part : part.slice(0, i);
    const portRef = i < 0 ? undefined : part.slice(i + 1);
    const node = findNode(nodes, nodeRef);
    let port: { adapter_number: number; port_number: number } | undefined;
    if (portRef) {
      port = matchPort(node.ports ?? [], portRef);
      if (!port) throw new Gns3NotFoundError(`Port "${portRef}" not found on ${node.name} (ports: ${summarizePorts(node.ports ?? [])})`);
    }
    return { node, port };
  });
  const endMatches = (e: RawLink['nodes'][number], want: (typeof ends)[number]) =>
    e.node_id === want.node.node_id &&
    (!want.port || (e.adapter_number === want.port.adapter_number && e.port_number === want.port.port_number));
  const matches = links.filter((l) => {
    const [x, y] = l.nodes ?? [];
    if (!x || !y) return false;
    return (endMatches(x, ends[0]!) && endMatches(y, ends[1]!)) || (endMatches(x, ends[1]!) && endMatches(y, ends[0]!));
  });
  if (matches.length === 1) return matches[0]!;
  const a = ends[0]!.node.name;
  const b = ends[1]!.node.name;
  if (matches.length === 0) throw new Gns3NotFoundError(`No link between ${a} and ${b} matches "${ref}"`);
  // only reached with 2 or more matches
  throw new Gns3NotFoundError(`${matches.length} links between ${a} and ${b}; name the ports ("${a}:e0 ${b}:e1") or use the link id`);
}

/** A template by id, name (case-insensitive) or a unique partial name. */
export function findTemplate(templates: RawTemplate[], ref: string): RawTemplate {
  const r = ref.trim();
  const partial = () => {
    const matches = templates.filter((t) => t.name.toLowerCase().includes(r.toLowerCase()));
    return matches.length === 1 ? matches[0] : undefined;
  };
  const found = byIdOrName(templates, r, (t) => t.template_id) ?? partial();
  if (found) return found;
  const names = templates.map((t) => t.name).sort();
  throw new Gns3NotFoundError(`Template "${ref}" not found (templates: ${names.slice(0, 30).join(', ')})`);
}

/** `local "vm" 127.0.0.1 connected`: how a compute is shown to the model and the user. */
export function computeText(c: RawCompute): string {
  return `${c.compute_id} "${c.name}" ${c.host} ${c.connected === false ? 'disconnected' : 'connected'}`;
}

function computeList(computes: RawCompute[]): string {
  return computes.length === 0
    ? 'the controller lists no computes; GNS3 3.x does not list its own, "local"'
    : `computes: ${computes.map(computeText).join('; ')}`;
}

/**
 * The compute a new node goes to: the one asked for (id or name), else the template's own,
 * else the only connected one. A controller that lists none (GNS3 3.x with only its own
 * compute) takes "local". Several connected and none chosen: an error listing them.
 */
export function chooseCompute(computes: RawCompute[], template: Pick<RawTemplate, 'name' | 'compute_id'>, ref?: string): string {
  if (ref !== undefined) {
    const r = ref.trim();
    const found = byIdOrName(computes, r, (c) => c.compute_id);
    if (found) return found.compute_id;
    if (r.toLowerCase() === 'local') return 'local';
    throw new Gns3NotFoundError(`compute "${ref}" not found (${computeList(computes)})`);
  }
  if (template.compute_id) return template.compute_id;
  if (computes.length === 0) return 'local';
  const connected = computes.filter((c) => c.connected !== false);
  if (connected.length === 1) return connected[0]!.compute_id;
  throw new Gns3NotFoundError(
    connected.length === 0
      ? `no connected compute for template "${template.name}" (${computeList(computes)})`
      : `template "${template.name}" has no compute of its own and ${connected.length} computes are connected: name one with compute (${computeList(computes)})`,
  );
}

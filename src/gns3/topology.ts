/**
 * Raw controller JSON (v2 or v3) → the version-independent Topology.
 */
import type { RawCompute, RawLink, RawNode, RawTemplate } from './raw.js';
import type { Topology, TopologyLink, TopologyNode, TopologyPort } from './types.js';

const WILDCARD_HOSTS = new Set(['', '0.0.0.0', '::', '0:0:0:0:0:0:0:0', '[::]']);

/**
 * A node's console host as the client can reach it: controllers bound to all
 * interfaces report 0.0.0.0/::, which means "the controller's own address".
 */
export function reachableConsoleHost(host: string | null, controllerHost: string): string | null {
  if (host === null) return null;
  return WILDCARD_HOSTS.has(host.trim()) ? controllerHost : host;
}

/**
 * Platform hints: `key:value` tokens (e.g. `device_type:cisco_ios`) found in the
 * node's or its template's free-text `usage` field, which both API versions keep.
 */
export function hintTags(...texts: unknown[]): string[] {
  const tags = new Set<string>();
  for (const t of texts) {
    if (typeof t !== 'string') continue;
    for (const tok of t.split(/[\s,;]+/)) {
      if (/^[a-z_][\w-]*[:=][\w.\-/]+$/i.test(tok)) tags.add(tok.replace('=', ':'));
    }
  }
  return [...tags];
}

export function buildTopology(
  project: { project_id: string; name: string },
  nodes: RawNode[],
  links: RawLink[],
  templates: RawTemplate[],
  controllerHost: string,
  computes: RawCompute[] = [],
): Topology {
  const several = computes.length > 1;
  const templateById = new Map(templates.map((t) => [t.template_id, t]));
  const nodeById = new Map(nodes.map((n) => [n.node_id, n]));
  const portUse = new Map<string, string>();
  for (const l of links) for (const e of l.nodes ?? []) portUse.set(`${e.node_id}/${e.adapter_number}/${e.port_number}`, l.link_id);

  const outNodes: TopologyNode[] = nodes.map((n) => {
    const tpl = n.template_id ? templateById.get(n.template_id) : undefined;
    const ports: TopologyPort[] = (n.ports ?? []).map((p) => ({
      name: p.name,
      short_name: p.short_name,
      adapter_number: p.adapter_number,
      port_number: p.port_number,
      link_id: portUse.get(`${n.node_id}/${p.adapter_number}/${p.port_number}`) ?? null,
    }));
    return {
      node_id: n.node_id,
      name: n.name,
      node_type: n.node_type,
      status: n.status,
      console: typeof n.console === 'number' ? n.console : null,
      console_host: reachableConsoleHost(n.console_host ?? null, controllerHost),
      console_type: n.console_type ?? null,
      template_id: n.template_id ?? null,
      template_name: tpl?.name ?? null,
      tags: hintTags(n.properties?.usage, tpl?.usage),
      ports,
      x: n.x,
      y: n.y,
      ...(several && n.compute_id ? { compute_id: n.compute_id } : {}),
    };
  });

  const outLinks: TopologyLink[] = links.map((l) => ({
    link_id: l.link_id,
    link_type: l.link_type ?? 'ethernet',
    ends: (l.nodes ?? []).map((e) => {
      const node = nodeById.get(e.node_id);
      const port = node?.ports?.find((p) => p.adapter_number === e.adapter_number && p.port_number === e.port_number);
      return {
        node_id: e.node_id,
        node_name: node?.name ?? e.node_id,
        adapter_number: e.adapter_number,
        port_number: e.port_number,
        port_name: port?.short_name ?? `${e.adapter_number}/${e.port_number}`,
      };
    }),
    filters: l.filters ?? {},
    suspend: Boolean(l.suspend),
    capturing: Boolean(l.capturing),
  }));

  const topology: Topology = { project_id: project.project_id, project_name: project.name, nodes: outNodes, links: outLinks };
  if (several)
    topology.computes = computes.map((c) => ({ compute_id: c.compute_id, name: c.name, host: c.host, connected: c.connected !== false }));
  return topology;
}

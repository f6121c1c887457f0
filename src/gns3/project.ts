/**
 * One open GNS3 project: the ProjectScope the tools act on. Reads are cached
 * for about a second (a burst of tool calls costs one topology fetch); every
 * write through this object drops the cache.
 */
import type { CallOptions, ControllerApi } from './controller.js';
import { Gns3ApiError, Gns3NotFoundError } from './errors.js';
import { matchPort, summarizePorts } from './ports.js';
import { chooseCompute, findLink, findNode, findTemplate } from './resolve.js';
import type { AvailableFilter, RawCompute, RawLink, RawNode, RawProject, RawTemplate } from './raw.js';
import { buildTopology } from './topology.js';
import type { CaptureOptions, ProjectScope, Topology, TopologyNode } from './types.js';
import { captureLink } from './capture.js';
import { setTimeout as sleep } from 'node:timers/promises';

const CACHE_MS = 1_000;

export type NodeAction = 'start' | 'stop' | 'suspend';
const TARGET_STATUS: Record<NodeAction, string> = { start: 'started', stop: 'stopped', suspend: 'suspended' };

/** Node types the server keeps "started" no matter what (no process of their own). */
const ALWAYS_ON = new Set(['ethernet_switch', 'ethernet_hub', 'cloud', 'nat', 'frame_relay_switch', 'atm_switch']);
/** Node types whose suspend is accepted but does nothing. */
const NO_SUSPEND = new Set(['vpcs', ...ALWAYS_ON]);

export interface NodeActionResult {
  node: string;
  node_id: string;
  node_status: string;
  console: string | null;
  note?: string;
}

export interface CreatedNode {
  node_id: string;
  name: string;
  requested_name?: string;
  template: string;
  /** the compute it runs on */
  compute_id: string;
  node_type: string;
  node_status: string;
  x: number;
  y: number;
  console: string | null;
  ports: string;
  note?: string;
}

export interface CreatedLink {
  link_id: string;
  a: string;
  b: string;
}

function consoleText(n: Pick<TopologyNode, 'console' | 'console_host' | 'console_type'> | RawNode): string | null {
  if (n.console === null || n.console === undefined || n.console_type === 'none' || n.console_type === null) return null;
  return `${n.console_type} ${n.console_host ?? '?'}:${n.console}`;
}

export class Gns3Project implements ProjectScope {
  readonly projectId: string;
  readonly projectName: string;
  private cache: { at: number; value: Promise<Topology> } | undefined;
  private rawCache: { at: number; value: Promise<{ nodes: RawNode[]; links: RawLink[] }> } | undefined;

  constructor(
    readonly client: ControllerApi,
    readonly raw: RawProject,
  ) {
    this.projectId = raw.project_id;
    this.projectName = raw.name;
  }

  /** Drops cached reads; called after every write. */
  invalidate(): void {
    this.cache = undefined;
    this.rawCache = undefined;
  }

  private p(path: string): string {
    return `/projects/${this.projectId}${path}`;
  }

  /** A call inside this project; writes invalidate the topology cache. */
  async call(method: string, path: string, opts: CallOptions = {}): Promise<unknown> {
    if (method !== 'GET') this.invalidate();
    try {
      return await this.client.call(method, this.p(path), opts);
    } catch (err) {
      // auto_close (the default) closes a project once the last GUI listener leaves;
      // writes then fail with 403. Re-open once and retry rather than fail the tool.
      if (err instanceof Gns3ApiError && err.status === 403 && err.serverMessage === 'The project is not opened') {
        this.client.log.warn('GNS3 project was closed by the server; re-opening it', { project: this.projectName });
        await this.client.call('POST', this.p('/open'), { body: {}, signal: opts.signal });
        return await this.client.call(method, this.p(path), opts);
      }
      throw err;
    } finally {
      if (method !== 'GET') this.invalidate();
    }
  }

  api(signal?: AbortSignal) {
    return this.client.api(signal);
  }

  private controllerHost(): string {
    return new URL(this.client.baseUrl).hostname.replace(/^\[|\]$/g, '');
  }

  /** Nodes and links as the server sends them (cached like the topology). */
  async rawState(signal?: AbortSignal, opts: { fresh?: boolean } = {}): Promise<{ nodes: RawNode[]; links: RawLink[] }> {
    if (!opts.fresh && this.rawCache && Date.now() - this.rawCache.at < CACHE_MS) return this.rawCache.value;
    const value = Promise.all([
      this.client.call('GET', this.p('/nodes'), { signal }) as Promise<RawNode[]>,
      this.client.call('GET', this.p('/links'), { signal }) as Promise<RawLink[]>,
    ]).then(([nodes, links]) => ({ nodes: nodes ?? [], links: links ?? [] }));
    const entry = { at: Date.now(), value };
    this.rawCache = entry;
    value.catch(() => {
      if (this.rawCache === entry) this.rawCache = undefined;
    });
    return value;
  }

  async getTopology(signal?: AbortSignal, opts: { fresh?: boolean } = {}): Promise<Topology> {
    if (!opts.fresh && this.cache && Date.now() - this.cache.at < CACHE_MS) return this.cache.value;
    const value = (async () => {
      const [{ nodes, links }, templates, computes] = await Promise.all([
        this.rawState(signal, opts),
        this.client.listTemplates(signal).catch((): RawTemplate[] => []),
        this.client.listComputes(signal).catch((): RawCompute[] => []),
      ]);
      return buildTopology(this.raw, nodes, links, templates, this.controllerHost(), computes);
    })();
    const entry = { at: Date.now(), value };
    this.cache = entry;
    value.catch(() => {
      if (this.cache === entry) this.cache = undefined;
    });
    return value;
  }

  // ---- addressing -------------------------------------------------------

  /** A node by id or name (case-insensitive; exact case wins). */
  async resolveNode(ref: string, signal?: AbortSignal): Promise<RawNode> {
    const { nodes } = await this.rawState(signal);
    return findNode(nodes, ref);
  }

  /**
   * A link by id, or "A:e0 B:e1" / "A:e0 <-> B:e1" / "A B" (the only link
   * between A and B).
   */
  async resolveLink(ref: string, signal?: AbortSignal): Promise<RawLink> {
    const { nodes, links } = await this.rawState(signal);
    return findLink(nodes, links, ref);
  }

  // ---- nodes ------------------------------------------------------------

  async resolveTemplate(ref: string, signal?: AbortSignal): Promise<RawTemplate> {
    return findTemplate(await this.client.listTemplates(signal), ref);
  }

  /** Creates a node from a template; renames afterwards when the server ignored the name (v3). */
  async createNode(
    spec: { template: string; name?: string; x: number; y: number; compute?: string },
    signal?: AbortSignal,
  ): Promise<CreatedNode> {
    const template = await this.resolveTemplate(spec.template, signal);
    const computeId = chooseCompute(await this.client.listComputes(signal), template, spec.compute);
    const body: Record<string, unknown> = { x: Math.round(spec.x), y: Math.round(spec.y), compute_id: computeId };
    if (spec.name) body.name = spec.name;
    let node = (await this.call('POST', `/templates/${template.template_id}`, { body, signal })) as RawNode;
    const notes: string[] = [];
    if (spec.name && node.name !== spec.name) {
      // v3 ignores `name` on template creation; rename, and the server may still de-duplicate.
      const first = node.name;
      try {
        node = (await this.call('PUT', `/nodes/${node.node_id}`, { body: { name: spec.name }, signal })) as RawNode;
      } catch (err) {
        notes.push(`created as ${first}; rename failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    if (spec.name && node.name !== spec.name && notes.length === 0) {
      notes.push(`the server named it ${node.name} because "${spec.name}" is taken or not allowed`);
    }
    return {
      node_id: node.node_id,
      name: node.name,
      ...(spec.name && spec.name !== node.name ? { requested_name: spec.name } : {}),
      template: template.name,
      compute_id: node.compute_id ?? computeId,
      node_type: node.node_type,
      node_status: node.status,
      x: node.x,
      y: node.y,
      console: consoleText(node),
      ports: summarizePorts(node.ports ?? []),
      ...(notes.length ? { note: notes.join('; ') } : {}),
    };
  }

  /** Free spots on a grid that keep clear of existing nodes (and of each other). */
  async placements(count: number, signal?: AbortSignal): Promise<{ x: number; y: number }[]> {
    const { nodes } = await this.rawState(signal);
    return placeNodes(
      nodes.map((n) => ({ x: n.x, y: n.y, w: n.width ?? 60, h: n.height ?? 60 })),
      count,
    );
  }

  async renameNode(
    ref: string,
    newName: string,
    signal?: AbortSignal,
  ): Promise<{ node_id: string; old_name: string; name: string; note?: string }> {
    const node = await this.resolveNode(ref, signal);
    const updated = (await this.call('PUT', `/nodes/${node.node_id}`, { body: { name: newName }, signal })) as RawNode;
    // Verify with a fresh read: the PUT answer is the server's intent, GET is the state.
    const check = (await this.client.call('GET', this.p(`/nodes/${node.node_id}`), { signal })) as RawNode;
    const name = check?.name ?? updated?.name;
    const out: { node_id: string; old_name: string; name: string; note?: string } = { node_id: node.node_id, old_name: node.name, name };
    if (name !== newName) out.note = `the server stored "${name}" (names are de-duplicated and spaces removed)`;
    return out;
  }

  async rawLink(linkId: string, signal?: AbortSignal): Promise<RawLink> {
    return (await this.client.call('GET', this.p(`/links/${linkId}`), { signal })) as RawLink;
  }

  async nodeStatus(nodeId: string, signal?: AbortSignal): Promise<RawNode> {
    return (await this.client.call('GET', this.p(`/nodes/${nodeId}`), { signal })) as RawNode;
  }

  /**
   * start/stop/suspend one node, then poll its status until it reaches the
   * target or the deadline passes (the v2 action answer may carry a stale status).
   */
  async nodeAction(ref: string, action: NodeAction, opts: { deadlineMs?: number; signal?: AbortSignal } = {}): Promise<NodeActionResult> {
    const node = await this.resolveNode(ref, opts.signal);
    const api = await this.api(opts.signal);
    const body = api === 'v3' && action === 'start' ? {} : undefined;
    await this.call('POST', `/nodes/${node.node_id}/${action}`, { body, signal: opts.signal });

    const target = TARGET_STATUS[action];
    const noEffect = (action === 'stop' && ALWAYS_ON.has(node.node_type)) || (action === 'suspend' && NO_SUSPEND.has(node.node_type));
    const deadline = Date.now() + (opts.deadlineMs ?? 30_000);
    let current = await this.nodeStatus(node.node_id, opts.signal);
    let delay = 100;
    while (!noEffect && current.status !== target && Date.now() < deadline) {
      await sleep(Math.min(delay, Math.max(0, deadline - Date.now())), undefined, { signal: opts.signal });
      delay = Math.min(delay * 2, 1_000);
      current = await this.nodeStatus(node.node_id, opts.signal);
    }
    const host = current.console_host;
    const view = { ...current, console_host: host && ['0.0.0.0', '::', ''].includes(host) ? this.controllerHost() : host };
    const result: NodeActionResult = {
      node: current.name,
      node_id: current.node_id,
      node_status: current.status,
      console: consoleText(view),
    };
    if (noEffect) {
      result.note =
        action === 'stop'
          ? `${node.node_type} nodes are always running; stop has no effect`
          : `${node.node_type} nodes cannot be suspended; it keeps running`;
    } else if (current.status !== target) {
      result.note = `still ${current.status} after ${Math.round((opts.deadlineMs ?? 30_000) / 1000)} s (wanted ${target})`;
    }
    return result;
  }

  // ---- links ------------------------------------------------------------

  async createLink(spec: { node_a: string; port_a: string; node_b: string; port_b: string }, signal?: AbortSignal): Promise<CreatedLink> {
    const topo = await this.getTopology(signal);
    const { nodes } = await this.rawState(signal);
    const endpoint = (nodeRef: string, portRef: string) => {
      const raw = findNode(nodes, nodeRef);
      const tnode = topo.nodes.find((n) => n.node_id === raw.node_id)!;
      const free = tnode.ports.filter((p) => p.link_id === null);
      const port = matchPort(tnode.ports, portRef);
      if (!port) {
        throw new Gns3NotFoundError(`Port "${portRef}" not found on ${raw.name}; free ports: ${summarizePorts(free)}`);
      }
      if (port.link_id !== null) {
        throw new Gns3NotFoundError(`Port ${port.short_name} on ${raw.name} is already used; free ports: ${summarizePorts(free)}`);
      }
      return { raw, port };
    };
    const a = endpoint(spec.node_a, spec.port_a);
    const b = endpoint(spec.node_b, spec.port_b);
    if (a.raw.node_id === b.raw.node_id) throw new Gns3NotFoundError(`Cannot connect ${a.raw.name} to itself`);
    const body = {
      nodes: [a, b].map((e) => ({
        node_id: e.raw.node_id,
        adapter_number: e.port.adapter_number,
        port_number: e.port.port_number,
        label: { text: e.port.short_name, x: 10, y: 10 },
      })),
    };
    try {
      const link = (await this.call('POST', '/links', { body, signal })) as RawLink;
      return { link_id: link.link_id, a: `${a.raw.name}:${a.port.short_name}`, b: `${b.raw.name}:${b.port.short_name}` };
    } catch (err) {
      if (err instanceof Gns3ApiError && (err.status === 409 || err.status === 404)) {
        // The server knows better than our snapshot (another client linked it); say what is free now.
        this.invalidate();
        const fresh = await this.getTopology(signal).catch(() => undefined);
        const freeOf = (id: string) =>
          summarizePorts(fresh?.nodes.find((n) => n.node_id === id)?.ports.filter((p) => p.link_id === null) ?? []);
        throw new Gns3NotFoundError(
          `${err.serverMessage}; free ports: ${a.raw.name} ${freeOf(a.raw.node_id)}, ${b.raw.name} ${freeOf(b.raw.node_id)}`,
        );
      }
      throw err;
    }
  }

  async availableFilters(linkRef: string, signal?: AbortSignal): Promise<{ link: RawLink; filters: AvailableFilter[] }> {
    const link = await this.resolveLink(linkRef, signal);
    const filters =
      ((await this.client.call('GET', this.p(`/links/${link.link_id}/available_filters`), { signal })) as AvailableFilter[]) ?? [];
    return { link, filters };
  }

  /** PUT replaces the whole filter set; the answer is what the server stored. */
  async putFilters(linkId: string, filters: Record<string, unknown[]>, signal?: AbortSignal): Promise<RawLink> {
    return (await this.call('PUT', `/links/${linkId}`, { body: { filters }, signal })) as RawLink;
  }

  /** Label "R1:e0 <-> R2:e1" for a raw link. */
  async linkLabel(link: RawLink, signal?: AbortSignal): Promise<string> {
    const { nodes } = await this.rawState(signal);
    return (link.nodes ?? [])
      .map((e) => {
        const n = nodes.find((x) => x.node_id === e.node_id);
        const port = n?.ports?.find((p) => p.adapter_number === e.adapter_number && p.port_number === e.port_number);
        return `${n?.name ?? e.node_id}:${port?.short_name ?? `${e.adapter_number}/${e.port_number}`}`;
      })
      .join(' <-> ');
  }

  // ---- capture ----------------------------------------------------------

  async capture(linkRef: string, opts: CaptureOptions = {}): Promise<Uint8Array> {
    const link = await this.resolveLink(linkRef, opts.signal);
    try {
      return await captureLink(this, link, opts);
    } finally {
      this.invalidate();
    }
  }
}

/**
 * Grid placement: 150 px apart, rows of 6 around the origin, skipping any spot
 * within 100 px of an existing node.
 */
export function placeNodes(existing: { x: number; y: number; w: number; h: number }[], count: number): { x: number; y: number }[] {
  const taken = existing.map((e) => ({ cx: e.x + e.w / 2, cy: e.y + e.h / 2 }));
  const out: { x: number; y: number }[] = [];
  const STEP = 150;
  const COLS = 6;
  for (let i = 0; out.length < count && i < 10_000; i++) {
    const x = -((COLS - 1) * STEP) / 2 + (i % COLS) * STEP;
    const y = -150 + Math.floor(i / COLS) * STEP;
    const cx = x + 30;
    const cy = y + 30;
    if (taken.some((t) => Math.abs(t.cx - cx) < 100 && Math.abs(t.cy - cy) < 100)) continue;
    taken.push({ cx, cy });
    out.push({ x, y });
  }
  return out;
}

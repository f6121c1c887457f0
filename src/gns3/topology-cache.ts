/**
 * The project's topology kept in memory: loaded from one REST read, then changed by the
 * notification events (node.*, link.*, project.*) so reading it costs no round trip. The
 * events carry the full node or link JSON of the REST API, so an event replaces what it
 * names; the Topology is rebuilt from the raw state on the next read after a change.
 */
import type { RawCompute, RawLink, RawNode, RawTemplate } from './raw.js';
import { isLinkEvent, isNodeEvent, isProjectEvent, type Notification } from './notification-events.js';
import { buildTopology } from './topology.js';
import type { Topology } from './types.js';

export interface CacheLoad {
  nodes: RawNode[];
  links: RawLink[];
  templates: RawTemplate[];
  computes: RawCompute[];
}

export class TopologyCache {
  private nodes = new Map<string, RawNode>();
  private links = new Map<string, RawLink>();
  private templates: RawTemplate[] = [];
  private computes: RawCompute[] = [];
  private built: Topology | undefined;
  private readonly listeners = new Set<(t: Topology) => void>();
  /** changes applied since the cache was created (loads and events) */
  version = 0;
  /** performance.now() of the last change */
  changedAt = 0;

  constructor(
    private project: { project_id: string; name: string },
    private readonly controllerHost: string,
  ) {}

  get projectId(): string {
    return this.project.project_id;
  }

  /** Replaces everything with a fresh REST read. */
  load(l: CacheLoad): void {
    this.nodes = new Map(l.nodes.map((n) => [n.node_id, n]));
    this.links = new Map(l.links.map((x) => [x.link_id, x]));
    this.templates = l.templates;
    this.computes = l.computes;
    this.changed();
  }

  /** Applies one event; true when the topology changed. */
  apply(n: Notification): boolean {
    if (isNodeEvent(n)) {
      const id = n.event.node_id;
      if (n.action === 'node.deleted') {
        // a delete comes twice (the compute's short form, then the controller's): the second finds nothing
        if (!this.nodes.delete(id)) return false;
        for (const [lid, l] of this.links) if (l.nodes.some((e) => e.node_id === id)) this.links.delete(lid);
      } else {
        // the compute's short forms lack ports and coordinates: keep what the controller's full JSON said
        const before = this.nodes.get(id);
        this.nodes.set(id, before && !Array.isArray(n.event.ports) ? { ...before, ...n.event } : n.event);
      }
      return this.changed();
    }
    if (isLinkEvent(n)) {
      if (n.action === 'link.deleted') {
        if (!this.links.delete(n.event.link_id)) return false;
      } else this.links.set(n.event.link_id, { ...n.event, nodes: Array.isArray(n.event.nodes) ? n.event.nodes : [] });
      return this.changed();
    }
    if (isProjectEvent(n) && n.event.project_id === this.project.project_id && n.action === 'project.updated') {
      if (n.event.name === this.project.name) return false;
      this.project = { ...this.project, name: n.event.name };
      return this.changed();
    }
    return false;
  }

  topology(): Topology {
    this.built ??= buildTopology(
      this.project,
      [...this.nodes.values()],
      [...this.links.values()],
      this.templates,
      this.controllerHost,
      this.computes,
    );
    return this.built;
  }

  /** Called with the new topology after every change; returns the unsubscribe. */
  onChange(fn: (t: Topology) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** the templates the cache names nodes' platforms with */
  knowsTemplate(id: string | null | undefined): boolean {
    return !id || this.templates.some((t) => t.template_id === id);
  }

  setTemplates(templates: RawTemplate[]): void {
    this.templates = templates;
    this.changed();
  }

  private changed(): true {
    this.built = undefined;
    this.version++;
    this.changedAt = performance.now();
    if (this.listeners.size) {
      const t = this.topology();
      for (const fn of this.listeners) fn(t);
    }
    return true;
  }
}

/**
 * The session's live view of its project (docs/ARCHITECTURE.md, Live topology): where the
 * policy allows (./live-policy.ts), the project's notification stream keeps a
 * TopologyCache current and a topology read costs no round trip; otherwise, and whenever
 * the stream is down, a read is today's REST read. The controller stream is followed too:
 * `project.*` events only go there. On `project.closed` the copilot stops listening to the
 * project (it never keeps a closed project's stream), and starts again on `project.opened`.
 */
import type { Logger } from '../log.js';
import { errorMessage } from '../errors.js';
import type { RawCompute, RawProject, RawTemplate } from './raw.js';
import type { Gns3Project } from './project.js';
import type { Topology } from './types.js';
import { isProjectEvent, type Notification } from './notification-events.js';
import { NotificationFeed, type FeedOptions } from './notification-feed.js';
import { TopologyCache } from './topology-cache.js';
import { streamDecision, type NotificationsPolicy, type StreamDecision } from './live-policy.js';

export interface LiveOptions {
  policy: NotificationsPolicy;
  log: Logger;
  /** test and bench knobs of the feeds */
  feed?: Pick<FeedOptions, 'backoff' | 'silenceMs'>;
}

/** Where the topology comes from now, for `doctor`, the map's header and the log. */
export interface LiveStatus {
  /** `stream`: listening (healthy or not); `reads`: REST reads by policy; `closed`: the project was closed on the controller */
  mode: 'stream' | 'reads' | 'closed';
  healthy: boolean;
  reason: string;
  transport?: 'ws' | 'http';
}

const RESYNC_RETRY_MS = 2_000;

export class LiveTopology {
  private readonly cache: TopologyCache;
  private projectFeed: NotificationFeed | undefined;
  private controllerFeed: NotificationFeed | undefined;
  /** events that arrive while the project is (re-)read, replayed onto the read */
  private buffered: Notification[] | undefined;
  private loaded = false;
  private closed = false;
  private downReason: string | undefined;
  private downSaid = false;
  private readonly notices: string[] = [];
  private decision: StreamDecision = { subscribe: false, reason: 'not started' };

  constructor(
    private readonly project: Gns3Project,
    private readonly o: LiveOptions,
  ) {
    this.cache = new TopologyCache({ project_id: project.projectId, name: project.projectName }, controllerHost(project.client.baseUrl));
  }

  /** Reads the project's auto_close and listens when the policy allows. */
  async start(signal?: AbortSignal): Promise<StreamDecision> {
    const raw = (await this.project.client.call('GET', `/projects/${this.project.projectId}`, { signal })) as RawProject;
    this.decision = streamDecision(this.o.policy, raw.auto_close);
    this.o.log.info('live topology', {
      project: this.project.projectName,
      subscribe: this.decision.subscribe,
      reason: this.decision.reason,
    });
    if (!this.decision.subscribe) return this.decision;
    const feed = (paths: FeedOptions['paths'], rest: Pick<FeedOptions, 'onMessage' | 'onUp' | 'onDown' | 'onGone'>) =>
      new NotificationFeed({ endpoint: this.project.client, paths, log: this.o.log, ...this.o.feed, ...rest });
    const base = `/projects/${this.project.projectId}/notifications`;
    this.projectFeed = feed(
      { ws: `${base}/ws`, http: base },
      {
        onMessage: (n) => (this.buffered ? this.buffered.push(n) : this.cache.apply(n)),
        onUp: () => void this.resync(),
        onDown: (reason) => {
          this.loaded = false;
          this.downReason = reason;
          // the next REST read must not be the project's short-lived read cache from before the drop
          this.project.invalidate();
        },
        onGone: (reason) => this.projectClosed(`the controller no longer knows it (${reason})`),
      },
    );
    this.controllerFeed = feed(
      { ws: '/notifications/ws', http: '/notifications' },
      { onMessage: (n) => this.controllerEvent(n), onUp: (resumed) => void (resumed && this.checkStillOpen()) },
    );
    this.projectFeed.start();
    this.controllerFeed.start();
    return this.decision;
  }

  get healthy(): boolean {
    return !this.closed && this.loaded && this.buffered === undefined && (this.projectFeed?.up ?? false);
  }

  status(): LiveStatus {
    if (this.closed) return { mode: 'closed', healthy: false, reason: 'the project was closed on the controller' };
    if (!this.decision.subscribe) return { mode: 'reads', healthy: false, reason: this.decision.reason };
    return {
      mode: 'stream',
      healthy: this.healthy,
      reason: this.healthy ? this.decision.reason : `the notification stream is down${this.downReason ? ` (${this.downReason})` : ''}`,
      ...(this.projectFeed ? { transport: this.projectFeed.transport } : {}),
    };
  }

  /**
   * The topology: from the cache while the stream is healthy, else the REST read. Falling
   * back while the copilot listens is said once per outage (takeNotices).
   */
  async topology(signal?: AbortSignal): Promise<{ topology: Topology; from: 'cache' | 'controller' }> {
    if (this.healthy) return { topology: this.cache.topology(), from: 'cache' };
    if (this.decision.subscribe && !this.closed && this.downReason && !this.downSaid) {
      this.downSaid = true;
      this.notices.push(
        `the controller's notification stream is down (${this.downReason}): the topology is read over REST before each LLM call until it is back`,
      );
    }
    return { topology: await this.project.getTopology(signal), from: 'controller' };
  }

  /** Notices not shown yet (each once). */
  takeNotices(): string[] {
    return this.notices.splice(0);
  }

  /** Called with the topology after every change the stream brings; returns the unsubscribe. */
  onChange(fn: (t: Topology) => void): () => void {
    return this.cache.onChange(fn);
  }

  /** performance.now() of the cache's last change (the bench measures event → cache) */
  get changedAt(): number {
    return this.cache.changedAt;
  }

  /** Stops listening (the session ends). */
  close(): void {
    this.projectFeed?.stop();
    this.controllerFeed?.stop();
  }

  /** (Re-)reads the project after the project stream came up: events may have been missed meanwhile. */
  private async resync(): Promise<void> {
    this.buffered = [];
    this.project.invalidate();
    try {
      const [raw, state, templates, computes] = await Promise.all([
        this.project.client.call('GET', `/projects/${this.project.projectId}`) as Promise<RawProject>,
        this.project.rawState(),
        this.project.client.listTemplates(undefined, 0).catch((): RawTemplate[] => []),
        this.project.client.listComputes().catch((): RawCompute[] => []),
      ]);
      if (raw.status === 'closed') return this.projectClosed('it is closed');
      this.cache.load({ ...state, templates, computes });
      for (const n of this.buffered) this.cache.apply(n);
      this.loaded = true;
      this.downReason = undefined;
      this.downSaid = false;
      this.o.log.info('live topology loaded', { project: this.project.projectName, nodes: state.nodes.length, links: state.links.length });
    } catch (err) {
      this.o.log.warn('live topology: reading the project failed', { error: errorMessage(err) });
      this.downReason = `reading the project failed: ${errorMessage(err)}`;
      setTimeout(() => void (this.projectFeed?.up && !this.loaded && this.resync()), RESYNC_RETRY_MS).unref();
    } finally {
      this.buffered = undefined;
    }
  }

  private controllerEvent(n: Notification): void {
    if (!isProjectEvent(n) || n.event.project_id !== this.project.projectId) return;
    if (n.action === 'project.closed') return this.projectClosed('closed on the controller');
    if (n.action === 'project.deleted') return this.projectClosed('deleted on the controller', true);
    if (n.action === 'project.opened' && this.closed) return this.reopened(n.event);
    if (n.action === 'project.updated') {
      this.cache.apply(n);
      if (n.event.auto_close === true && this.o.policy === 'auto' && this.projectFeed && !this.closed) {
        this.notices.push(
          `auto_close was turned on for project ${n.event.name} while the copilot listens: when it leaves, the controller will close the project (stopping its nodes) unless another client listens`,
        );
      }
    }
  }

  /** After the controller stream reconnected: a project.closed may have been missed. */
  private async checkStillOpen(): Promise<void> {
    const raw = (await this.project.client.call('GET', `/projects/${this.project.projectId}`).catch(() => undefined)) as
      RawProject | undefined;
    if (raw?.status === 'closed' && !this.closed) this.projectClosed('it was closed while the copilot was not connected');
  }

  private projectClosed(why: string, deleted = false): void {
    if (this.closed && !deleted) return;
    this.closed = true;
    this.loaded = false;
    this.project.invalidate();
    this.projectFeed?.stop();
    if (deleted) this.controllerFeed?.stop();
    this.o.log.info('live topology: stopped listening', { project: this.project.projectName, why });
    this.notices.push(
      `project ${this.project.projectName}: ${why}. The copilot stopped listening to it; the topology is read over REST${deleted ? '' : ' until it is opened again'}`,
    );
  }

  private reopened(raw: RawProject): void {
    this.closed = false;
    this.decision = streamDecision(this.o.policy, raw.auto_close);
    if (this.decision.subscribe) this.projectFeed?.start();
  }
}

function controllerHost(baseUrl: string): string {
  return new URL(baseUrl).hostname.replace(/^\[|\]$/g, '');
}

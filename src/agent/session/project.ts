/**
 * The session's GNS3 project scope: opened lazily and once (a failed open is retried by
 * the next request), its live topology (the notification stream where the policy allows,
 * src/gns3/live-topology.ts: while healthy, a topology read costs no round trip), the
 * topology text for the system prompt, and closing the controller client without waiting
 * for a probe the run already gave up on.
 */
import type { Settings } from '../../config/schema.js';
import type { ProjectScope, Topology } from '../../gns3/types.js';
import type { LiveTopology } from '../../gns3/live-topology.js';
import type { Logger } from '../../log.js';
import { ControllerError } from '../../errors.js';
import type { InjectedTopology } from '../graph-deps.js';
import type { LabView } from '../../core/api.js';

export interface SessionProject {
  /** a project is configured (or injected): requests open it first */
  has(): boolean;
  open(): Promise<ProjectScope>;
  /** the controller call opening the project still waits for (`GET /v2/projects`), if any */
  waitingOn(): string | undefined;
  /** the rendered topology for the system prompt and its node names (for the log); undefined without a project */
  topology(signal: AbortSignal): Promise<InjectedTopology | undefined>;
  /** the lab now (from the live cache when the stream is healthy); undefined without a project */
  current(signal: AbortSignal): Promise<Topology | undefined>;
  /** the live topology once the project is open (undefined: not open yet, or an injected scope) */
  live(): LiveTopology | undefined;
  /** the lab for the TUI's /map (opens the project); undefined without a project */
  view(): Promise<LabView<Topology> | undefined>;
  close(): Promise<void>;
}

/** `inject` replaces the controller (a test seam). */
export function sessionProject(settings: Settings, log: Logger, inject?: () => Promise<ProjectScope>): SessionProject {
  let client: { close(): Promise<void>; http: { inFlight: ReadonlySet<string> } } | undefined;
  let promise: Promise<ProjectScope> | undefined;
  /** a controller probe still waiting (given up on by --max-time/Ctrl-C): close() must not wait for it */
  let pending = false;
  let live: LiveTopology | undefined;
  const open = (): Promise<ProjectScope> => {
    if (inject) return (promise ??= inject());
    if (!settings.project)
      return Promise.reject(new ControllerError('no GNS3 project selected: pass --project <name|id> (or set GNS3_PROJECT)'));
    const project = settings.project;
    promise ??= (async () => {
      const [{ createKeychainGns3Client }, { openProjectScope }] = await Promise.all([
        import('../../gns3/keychain-client.js'),
        import('../../gns3/client.js'),
      ]);
      const c = createKeychainGns3Client(settings, log);
      client = c;
      const scope = await openProjectScope(c, project);
      live = await startLive(scope, settings, log);
      return scope;
    })();
    pending = true;
    promise.then(
      () => (pending = false),
      () => (pending = false),
    );
    promise.catch(() => (promise = undefined));
    return promise;
  };
  const has = () => inject !== undefined || settings.project !== undefined;
  const current = async (signal: AbortSignal): Promise<Topology | undefined> => {
    if (!has()) return undefined;
    const project = await open();
    return live ? (await live.topology(signal)).topology : project.getTopology(signal);
  };
  return {
    has,
    open,
    waitingOn: () => (client ? [...client.http.inFlight][0] : undefined),
    live: () => live,
    current,
    async view() {
      if (!has()) return undefined;
      await open();
      const l = live;
      return {
        topology: async (signal) => (await current(signal ?? new AbortController().signal))!,
        onChange: (fn) => l?.onChange(fn) ?? (() => undefined),
        status: () => {
          const s = l?.status();
          return s ? { live: s.healthy, reason: s.reason } : { live: false, reason: 'no notification stream for this project' };
        },
      };
    },
    async topology(signal) {
      const t = await current(signal);
      if (!t) return undefined;
      const { renderPromptTopology } = await import('../../gns3/render.js');
      const notices = live?.takeNotices() ?? [];
      return {
        text: renderPromptTopology(t, settings.topology_inline_max),
        nodes: t.nodes.map((n) => n.name),
        ...(notices.length ? { notices } : {}),
      };
    },
    async close() {
      live?.close();
      const closing = client?.close().catch(() => undefined);
      if (!pending) await closing;
    },
  };
}

/** The project's live topology: listening starts in the background (a request never waits for the stream). */
async function startLive(scope: ProjectScope, settings: Settings, log: Logger): Promise<LiveTopology | undefined> {
  const [{ LiveTopology }, { Gns3Project }] = await Promise.all([import('../../gns3/live-topology.js'), import('../../gns3/project.js')]);
  if (!(scope instanceof Gns3Project)) return undefined;
  const live = new LiveTopology(scope, { policy: settings.notifications, log });
  live
    .start()
    .catch((err: unknown) => log.warn('live topology could not start', { error: err instanceof Error ? err.message : String(err) }));
  return live;
}

/**
 * The session's GNS3 project scope: opened lazily and once (a failed open is retried by
 * the next request), the topology text for the system prompt, and closing the
 * controller client without waiting for a probe the run already gave up on.
 */
import type { Settings } from '../../config/schema.js';
import type { ProjectScope } from '../../gns3/types.js';
import type { Logger } from '../../log.js';
import { ControllerError } from '../../errors.js';
import type { InjectedTopology } from '../graph-deps.js';

export interface SessionProject {
  /** a project is configured (or injected): requests open it first */
  has(): boolean;
  open(): Promise<ProjectScope>;
  /** the controller call opening the project still waits for (`GET /v2/projects`), if any */
  waitingOn(): string | undefined;
  /** the rendered topology for the system prompt and its node names (for the log); undefined without a project */
  topology(signal: AbortSignal): Promise<InjectedTopology | undefined>;
  close(): Promise<void>;
}

/** `inject` replaces the controller (a test seam). */
export function sessionProject(settings: Settings, log: Logger, inject?: () => Promise<ProjectScope>): SessionProject {
  let client: { close(): Promise<void>; http: { inFlight: ReadonlySet<string> } } | undefined;
  let promise: Promise<ProjectScope> | undefined;
  /** a controller probe still waiting (given up on by --max-time/Ctrl-C): close() must not wait for it */
  let pending = false;
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
      return openProjectScope(c, project);
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
  return {
    has,
    open,
    waitingOn: () => (client ? [...client.http.inFlight][0] : undefined),
    async topology(signal) {
      if (!has()) return undefined;
      const project = await open();
      const t = await project.getTopology(signal);
      const { renderTopologyText } = await import('../../gns3/render.js');
      return { text: renderTopologyText(t), nodes: t.nodes.map((n) => n.name) };
    },
    async close() {
      const closing = client?.close().catch(() => undefined);
      if (!pending) await closing;
    },
  };
}

/**
 * A project's lab opened for a command that is not a copilot session (`checkpoint`,
 * `rewind`, the TUI's /checkpoint): one controller client, the project's scope, the
 * device pool (closed after), the tool registry a restore dispatches through, and
 * the named checkpoints of sessions.db.
 */
import type { Settings } from '../config/schema.js';
import type { Gns3Client } from '../gns3/client.js';
import type { RawProject } from '../gns3/raw.js';
import { createLogger, type Logger } from '../log.js';
import type { SessionStore } from '../sessions/store.js';
import { NamedCheckpointStore, controllerKey } from '../checkpoints/named-store.js';
import type { ToolContext } from '../tools/types.js';
import type { ToolRegistry } from '../tools/registry.js';

/** One project's lab: what saving, diffing and restoring a named checkpoint need. */
export interface ProjectLab {
  ctx: ToolContext;
  registry: ToolRegistry;
  store: NamedCheckpointStore;
  /** the controller part of the checkpoints' key */
  controller: string;
  project: { id: string; name: string };
}

/** A controller client for the body (credentials from the keychain or the environment), closed after. */
export async function withClient<T>(settings: Settings, body: (client: Gns3Client, log: Logger) => Promise<T>): Promise<T> {
  const log = createLogger(settings.log_level);
  const { createKeychainGns3Client } = await import('../gns3/keychain-client.js');
  const client = createKeychainGns3Client(settings, log);
  try {
    return await body(client, log);
  } finally {
    await client.close();
  }
}

/**
 * Runs `body` against one project of the client's controller — by name or id, or as the controller
 * just listed it (a class: the list is not read again per project); its consoles are closed after.
 */
export async function withProjectLab<T>(
  client: Gns3Client,
  settings: Settings,
  project: string | RawProject,
  sessions: SessionStore,
  signal: AbortSignal,
  log: Logger,
  body: (lab: ProjectLab) => Promise<T>,
): Promise<T> {
  const [{ openProjectScope }, { ToolRegistry }, { allTools }] = await Promise.all([
    import('../gns3/client.js'),
    import('../tools/registry.js'),
    import('../tools/index.js'),
  ]);
  const services = new Map<string, unknown>();
  try {
    const scope = await openProjectScope(client, project, signal);
    const ctx: ToolContext = { settings, signal, log, project: () => Promise.resolve(scope), services };
    return await body({
      ctx,
      registry: new ToolRegistry(allTools()),
      store: new NamedCheckpointStore(sessions.db),
      controller: controllerKey(settings.server),
      project: { id: scope.projectId, name: scope.projectName },
    });
  } finally {
    for (const s of services.values()) (s as { close?: () => void }).close?.();
  }
}

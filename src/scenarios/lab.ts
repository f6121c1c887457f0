/**
 * One GNS3 project as deterministic injection works on it: the project scope, the tool
 * context its calls run with (the project's device pool lives in its services), the
 * sessions database (the fault ledger and the CLI session), the tool registry the
 * dispatch judges calls against and the skill library. `openInjectLab` opens one for a
 * command; eval and tests may build their own.
 */
import type { Settings } from '../config/schema.js';
import type { Gns3Client } from '../gns3/client.js';
import type { RawProject } from '../gns3/raw.js';
import type { ProjectScope } from '../gns3/types.js';
import type { Logger } from '../log.js';
import type { SessionStore } from '../sessions/store.js';
import type { SkillLibrary } from '../skills/loader.js';
import { FaultStore } from '../faults/store.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { ToolContext } from '../tools/types.js';

export interface InjectLab {
  settings: Settings;
  project: ProjectScope;
  /** what the tools run with: the project, its device pool (services), the abort signal, the log */
  ctx: ToolContext;
  sessions: SessionStore;
  registry: ToolRegistry;
  lib: SkillLibrary;
}

const faultStores = new WeakMap<SessionStore, FaultStore>();

/**
 * One FaultStore per sessions database in this process, shared by the projects of a class
 * run injected in parallel (the slots of faults being applied are claims in the database
 * itself, so they hold across stores and processes as well).
 */
export function faultStoreOf(sessions: SessionStore): FaultStore {
  let s = faultStores.get(sessions);
  if (!s) faultStores.set(sessions, (s = new FaultStore(sessions.db)));
  return s;
}

export interface OpenLabDeps {
  settings: Settings;
  client: Gns3Client;
  sessions: SessionStore;
  registry: ToolRegistry;
  lib: SkillLibrary;
  log: Logger;
  signal: AbortSignal;
}

/**
 * Opens the project (a controller error when it cannot) — by name or id, or as the controller
 * just listed it (a class: the list is not read again per project) — and the context its calls
 * run with; close() frees its consoles.
 */
export async function openInjectLab(d: OpenLabDeps, project: string | RawProject): Promise<InjectLab & { close(): Promise<void> }> {
  const [{ openProjectScope }, { closeServices }] = await Promise.all([import('../gns3/client.js'), import('../tools/services.js')]);
  const scope = await openProjectScope(d.client, project, d.signal);
  const services = new Map<string, unknown>();
  const ctx: ToolContext = { settings: d.settings, signal: d.signal, log: d.log, project: () => Promise.resolve(scope), services };
  return {
    settings: d.settings,
    project: scope,
    ctx,
    sessions: d.sessions,
    registry: d.registry,
    lib: d.lib,
    close: () => closeServices(services),
  };
}

/**
 * What a diff or a rewind works on, for the command line and the TUI alike: the session
 * it is asked about, and the lab it changes (the session's GNS3 project, its checkpoint
 * store, the tools a restore calls), opened for one rewind and closed after it (./project-lab.ts).
 */
import type { Settings } from '../config/schema.js';
import { UsageError } from '../errors.js';
import type { SessionRow, SessionStore } from '../sessions/store.js';
import { CheckpointStore } from '../checkpoints/store.js';
import { withClient, withProjectLab } from './project-lab.js';

/** The named session, else the newest (of the project, when one is set). */
export function findSession(store: SessionStore, id: string | undefined, settings: Settings): SessionRow {
  if (id) return store.named(id);
  const row = store.latest(settings.project ? { project: settings.project } : {});
  if (!row) throw new UsageError('no sessions yet (see `gns3-copilot sessions list`)');
  return row;
}

/** Runs `body` against the session's project, with the tools a restore calls; everything it opened is closed after. */
export async function withLab<T>(
  settings: Settings,
  row: SessionRow,
  body: (deps: {
    store: CheckpointStore;
    ctx: import('../tools/types.js').ToolContext;
    registry: import('../tools/registry.js').ToolRegistry;
  }) => Promise<T>,
  store: SessionStore,
  signal: AbortSignal,
): Promise<T> {
  const project = settings.project ?? row.project_id ?? row.project_name;
  if (!project) throw new UsageError(`session ${row.id.slice(0, 8)} has no GNS3 project; pass --project <name|id>`);
  return withClient(settings, (client, log) =>
    withProjectLab(client, settings, project, store, signal, log, (lab) =>
      body({ store: new CheckpointStore(store.db), ctx: lab.ctx, registry: lab.registry }),
    ),
  );
}

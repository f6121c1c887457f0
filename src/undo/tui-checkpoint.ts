/**
 * The TUI's /checkpoint: saving the lab of the TUI's project under a name, the project's
 * checkpoints for the picker, and a restore approved call by call in the TUI's approval
 * box — the `checkpoint` command's own save and restore (./named-restore.ts) in process.
 */
import type { Settings } from '../config/schema.js';
import type { Approver } from '../core/api.js';
import { UsageError } from '../errors.js';
import type { SessionStore } from '../sessions/store.js';
import type { LabCheckpointSummary } from '../checkpoints/named-types.js';
import type { SaveReport } from '../checkpoints/named-save.js';
import type { NamedRestoreReport } from './named-restore.js';
import { withClient, withProjectLab, type ProjectLab } from './project-lab.js';

export interface TuiCheckpointRestoreOptions {
  name: string;
  devices?: string[];
  /** the TUI's approval box: every call of the restore is asked for there */
  approver: Approver;
  signal: AbortSignal;
  /** the plan (per device the commands and the diff they undo), before anything is asked */
  onPlan: (plan: NamedRestoreReport) => void;
}

function withTuiLab<T>(settings: Settings, store: SessionStore, signal: AbortSignal, body: (lab: ProjectLab) => Promise<T>): Promise<T> {
  const project = settings.project;
  if (!project) throw new UsageError('no GNS3 project: pick one with /project first');
  return withClient(settings, (client, log) => withProjectLab(client, settings, project, store, signal, log, body));
}

/** The project's named checkpoints, oldest first. */
export function labCheckpoints(settings: Settings, store: SessionStore, signal: AbortSignal): Promise<LabCheckpointSummary[]> {
  return withTuiLab(settings, store, signal, (lab) =>
    Promise.resolve(lab.store.list({ controller: lab.controller, project_id: lab.project.id })),
  );
}

/** /checkpoint save NAME [note]: every node captured, the topology, stored under the name. */
export async function saveFromTui(settings: Settings, store: SessionStore, o: { name: string; note?: string; signal: AbortSignal }) {
  const { saveLabCheckpoint } = await import('../checkpoints/named-save.js');
  return withTuiLab(settings, store, o.signal, (lab): Promise<SaveReport> =>
    saveLabCheckpoint(
      { ctx: lab.ctx, store: lab.store, controller: lab.controller },
      { name: o.name, ...(o.note ? { note: o.note } : {}) },
    ),
  );
}

/** /checkpoint restore: the command line's restore, approved call by call in the TUI's box. */
export async function restoreFromTui(settings: Settings, store: SessionStore, o: TuiCheckpointRestoreOptions): Promise<NamedRestoreReport> {
  const { restoreNamed } = await import('./named-restore.js');
  return withTuiLab(settings, store, o.signal, (lab) =>
    restoreNamed(lab, {
      name: o.name,
      ...(o.devices?.length ? { devices: o.devices } : {}),
      mode: settings.mode,
      policy: settings.approve === 'never' ? 'never' : 'ask',
      approvalTools: settings.approval_tools,
      approver: o.approver,
      interactive: true,
      onPlan: o.onPlan,
    }),
  );
}

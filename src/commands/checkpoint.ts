/**
 * `gns3-copilot checkpoint save|list|show|delete|diff|restore`: named lab checkpoints,
 * per controller and project, with no copilot session (src/checkpoints/named-*.ts, the
 * restore in src/undo/named-restore.ts). A restore goes through the tool gate as the
 * `cli` caller like `rewind`: `--yes` is its one approval, without it the plan is printed
 * and the exit code is 6; what it could not put back is exit 8.
 */
import type { Settings } from '../config/schema.js';
import { ExitCode, UsageError } from '../errors.js';
import { sanitizeText } from '../security/sanitize.js';
import { deviceOption } from './device-option.js';
import { SessionStore } from '../sessions/store.js';
import { withClient, withProjectLab, type ProjectLab } from '../undo/project-lab.js';
import { namedReportJson, namedReportText, listText, saveText, showJson, showText } from '../undo/named-report.js';

export type CheckpointAction = 'save' | 'list' | 'show' | 'delete' | 'diff' | 'restore';

type Opts = Record<string, unknown>;

const out = (s: string) => process.stdout.write(s);
const print = (opts: Opts, json: () => unknown, text: () => string) =>
  out(opts.json ? `${JSON.stringify(json())}\n` : sanitizeText(text()));

function nameArg(action: CheckpointAction, positional: string[]): string {
  const name = positional[0];
  if (!name) throw new UsageError(`checkpoint ${action}: a checkpoint name is required`);
  return name;
}

export async function checkpointCommand(
  action: CheckpointAction,
  positional: string[],
  opts: Opts,
  settings: Settings,
  signal: AbortSignal,
): Promise<number> {
  if (opts.projects !== undefined) return classCommand(action, positional, opts, settings, signal);
  if (opts.jobs !== undefined) throw new UsageError('--jobs: only with --projects GLOB');
  const project = settings.project;
  if (!project) throw new UsageError(`checkpoint ${action}: pass --project <name|id> (checkpoints belong to a GNS3 project)`);
  const sessions = await SessionStore.open(settings.data_dir);
  try {
    return await withClient(settings, (client, log) =>
      withProjectLab(client, settings, project, sessions, signal, log, (lab) => runAction(action, positional, opts, settings, lab)),
    );
  } finally {
    sessions.close();
  }
}

/** `checkpoint save|restore NAME --projects GLOB`: ./checkpoint-class.ts. */
async function classCommand(action: CheckpointAction, positional: string[], opts: Opts, settings: Settings, signal: AbortSignal) {
  const { classCheckpointRestore, classCheckpointSave } = await import('./checkpoint-class.js');
  const name = nameArg(action, positional);
  const sessions = await SessionStore.open(settings.data_dir);
  try {
    return await withClient(settings, (client, log) => {
      const deps = { client, settings, sessions, signal, log };
      return action === 'save' ? classCheckpointSave(deps, name, opts) : classCheckpointRestore(deps, name, opts);
    });
  } finally {
    sessions.close();
  }
}

async function runAction(action: CheckpointAction, positional: string[], opts: Opts, settings: Settings, lab: ProjectLab): Promise<number> {
  const key = { controller: lab.controller, project_id: lab.project.id };
  switch (action) {
    case 'save': {
      const { saveLabCheckpoint } = await import('../checkpoints/named-save.js');
      const report = await saveLabCheckpoint(
        { ctx: lab.ctx, store: lab.store, controller: lab.controller },
        {
          name: nameArg(action, positional),
          ...(typeof opts.note === 'string' ? { note: opts.note } : {}),
          replace: opts.replace === true,
        },
      );
      print(
        opts,
        () => report,
        () => saveText(report),
      );
      return ExitCode.Ok;
    }
    case 'list': {
      const list = lab.store.list(key);
      print(
        opts,
        () => ({ project: lab.project.name, project_id: lab.project.id, checkpoints: list }),
        () => listText(lab.project.name, list),
      );
      return ExitCode.Ok;
    }
    case 'show': {
      const { findLabCheckpoint } = await import('../undo/named-restore.js');
      const cp = await findLabCheckpoint(lab, nameArg(action, positional));
      const restores = lab.store.restores(cp.id);
      print(
        opts,
        () => showJson(cp, restores),
        () => showText(cp, restores),
      );
      return ExitCode.Ok;
    }
    case 'delete': {
      const { findLabCheckpoint } = await import('../undo/named-restore.js');
      const cp = await findLabCheckpoint(lab, nameArg(action, positional));
      lab.store.delete(key, cp.name);
      print(
        opts,
        () => ({ deleted: cp.name, project: lab.project.name }),
        () => `deleted checkpoint ${cp.name} of project ${lab.project.name}\n`,
      );
      return ExitCode.Ok;
    }
    case 'diff': {
      const { diffNamed } = await import('../undo/named-restore.js');
      const devices = deviceOption(opts.device);
      const report = await diffNamed(lab, nameArg(action, positional), devices);
      print(
        opts,
        () => namedReportJson(report),
        () => namedReportText(report, 'diff'),
      );
      return ExitCode.Ok;
    }
    case 'restore':
      return restore(positional, opts, settings, lab);
  }
}

async function restore(positional: string[], opts: Opts, settings: Settings, lab: ProjectLab): Promise<number> {
  const { restoreNamed, restoreIncomplete } = await import('../undo/named-restore.js');
  const devices = deviceOption(opts.device);
  const report = await restoreNamed(lab, {
    name: nameArg('restore', positional),
    ...(devices ? { devices } : {}),
    // the `cli` caller may send what a restore needs in any mode; the mode only names the gate's context
    mode: settings.mode,
    dryRun: opts.dryRun === true,
    policy: settings.approve === 'never' ? 'never' : 'ask',
    approvalTools: settings.approval_tools,
    ...(opts.yes === true ? { approver: () => Promise.resolve({ kind: 'allow_once' as const }) } : {}),
    interactive: false,
    onPlan: (plan) => {
      if (plan.resumed && !opts.dryRun) process.stderr.write(`resuming the unfinished restore of checkpoint ${plan.checkpoint}\n`);
    },
  });
  print(
    opts,
    () => namedReportJson(report),
    () => namedReportText(report, 'restore'),
  );
  if (report.blocked) {
    process.stderr.write(
      `error: ${report.blocked.reason}${report.blocked.needsApproval ? ' (rerun with --yes to apply this plan)' : ''}\n`,
    );
    return report.blocked.needsApproval ? ExitCode.ApprovalUnavailable : ExitCode.Usage;
  }
  const left = restoreIncomplete(report);
  if (left.length > 0) {
    process.stderr.write(`error: the restore did not put back everything: ${left.join(', ')}\n`);
    return ExitCode.NotRestored;
  }
  return ExitCode.Ok;
}

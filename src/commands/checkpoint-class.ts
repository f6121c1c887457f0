/**
 * `checkpoint save|restore NAME --projects GLOB [--jobs N]`: a named checkpoint of every
 * matching project of the controller, at most N projects at once, one row per project.
 * A restore is approved once for the whole class: without `--yes` every project's plan (each
 * device) is printed, nothing is sent and the exit code is 6; with it every project is restored
 * through the one gate and dispatch, as `checkpoint restore` does for one. Exit 8 when a project
 * could not be saved or restored in full (the rows say which), 0 when every one was.
 */
import type { Settings } from '../config/schema.js';
import { ExitCode, errorMessage } from '../errors.js';
import type { Gns3Client } from '../gns3/client.js';
import type { Logger } from '../log.js';
import { runLimited } from '../core/run-limited.js';
import { sanitizeLine, sanitizeText } from '../security/sanitize.js';
import type { SessionStore } from '../sessions/store.js';
import { withProjectLab, type ProjectLab } from '../undo/project-lab.js';
import { deviceOption } from './device-option.js';
import { namedReportJson, namedReportText, saveText } from '../undo/named-report.js';
import type { NamedRestoreReport } from '../undo/named-restore.js';

type Opts = Record<string, unknown>;
const out = (s: string) => process.stdout.write(s);

export interface ClassCheckpointDeps {
  client: Gns3Client;
  settings: Settings;
  sessions: SessionStore;
  signal: AbortSignal;
  log: Logger;
}

type Row<T> = { project: string; report: T } | { project: string; error: string };

/** The class's projects, each run through `body` with its lab open; a project's error is its row. */
async function eachProject<T>(deps: ClassCheckpointDeps, opts: Opts, body: (lab: ProjectLab) => Promise<T>): Promise<Row<T>[]> {
  const { classProjectList, parseJobs, checkProjectFlags, withClassSignal } = await import('../gns3/class-projects.js');
  const glob = String(opts.projects);
  checkProjectFlags(glob, typeof opts.project === 'string');
  const jobs = parseJobs(opts.jobs as string | undefined);
  // the controller's list is read once for the class: each project is opened as listed
  const listed = await classProjectList(deps.client, glob, deps.signal);
  return withClassSignal(deps.signal, (signal) =>
    runLimited(listed, jobs, async (raw): Promise<Row<T>> => {
      try {
        const report = await withProjectLab(deps.client, deps.settings, raw, deps.sessions, signal, deps.log, body);
        return { project: raw.name, report };
      } catch (err) {
        return { project: raw.name, error: errorMessage(err) };
      }
    }),
  );
}

const failed = <T>(rows: Row<T>[]) => rows.filter((r): r is { project: string; error: string } => 'error' in r);

export async function classCheckpointSave(deps: ClassCheckpointDeps, name: string, opts: Opts): Promise<number> {
  const { saveLabCheckpoint } = await import('../checkpoints/named-save.js');
  const rows = await eachProject(deps, opts, (lab) =>
    saveLabCheckpoint(
      { ctx: lab.ctx, store: lab.store, controller: lab.controller },
      { name, ...(typeof opts.note === 'string' ? { note: opts.note } : {}), replace: opts.replace === true },
    ),
  );
  const bad = failed(rows);
  if (opts.json)
    out(
      `${JSON.stringify({ projects: rows.map((r) => ('error' in r ? r : r.report)), totals: { projects: rows.length, saved: rows.length - bad.length, not_saved: bad.length } })}\n`,
    );
  else {
    const text = rows.map((r) => ('error' in r ? `project ${r.project}: checkpoint ${name} NOT saved — ${r.error}\n` : saveText(r.report)));
    out(sanitizeText(`${text.join('')}${rows.length} projects: ${rows.length - bad.length} saved, ${bad.length} not\n`));
  }
  if (bad.length === 0) return ExitCode.Ok;
  process.stderr.write(`error: checkpoint ${sanitizeLine(name)} was not saved in: ${bad.map((r) => sanitizeLine(r.project)).join(', ')}\n`);
  return ExitCode.NotRestored;
}

export async function classCheckpointRestore(deps: ClassCheckpointDeps, name: string, opts: Opts): Promise<number> {
  const { restoreNamed, restoreIncomplete } = await import('../undo/named-restore.js');
  const devices = deviceOption(opts.device);
  const { settings } = deps;
  const yes = opts.yes === true;
  const rows = await eachProject(deps, opts, (lab) =>
    restoreNamed(lab, {
      name,
      ...(devices ? { devices } : {}),
      mode: settings.mode,
      dryRun: opts.dryRun === true,
      policy: settings.approve === 'never' ? 'never' : 'ask',
      approvalTools: settings.approval_tools,
      // the one approval of the whole class: --yes; without it every project's plan is refused before anything is sent
      ...(yes ? { approver: () => Promise.resolve({ kind: 'allow_once' as const }) } : {}),
      interactive: false,
    }),
  );
  const reports = rows.filter((r): r is { project: string; report: NamedRestoreReport } => 'report' in r);
  const bad = failed(rows);
  if (opts.json) out(`${JSON.stringify({ projects: rows.map((r) => ('error' in r ? r : namedReportJson(r.report))) })}\n`);
  else {
    const text = rows.map((r) =>
      'error' in r ? `project ${r.project}: restore of checkpoint ${name}: ${r.error}\n` : namedReportText(r.report, 'restore'),
    );
    const devicesToRestore = reports.reduce(
      (s, r) => s + r.report.devices.filter((d) => d.status === 'blocked' || d.status === 'planned').length,
      0,
    );
    out(sanitizeText(`${text.join('\n')}\n${rows.length} projects, ${devicesToRestore} devices in the plan\n`));
  }
  const needsApproval = reports.some((r) => r.report.blocked?.needsApproval);
  if (needsApproval) {
    process.stderr.write(
      'error: the class restore needs approval: rerun with --yes to apply this plan to every project (nothing was sent)\n',
    );
    return ExitCode.ApprovalUnavailable;
  }
  const blocked = reports.filter((r) => r.report.blocked);
  if (blocked.length > 0) {
    process.stderr.write(`error: ${blocked[0]!.report.blocked!.reason}\n`);
    return ExitCode.Usage;
  }
  const incomplete = reports.filter((r) => restoreIncomplete(r.report).length > 0);
  if (bad.length === 0 && incomplete.length === 0) return ExitCode.Ok;
  if (opts.dryRun === true) {
    process.stderr.write(`error: no plan for: ${bad.map((r) => sanitizeLine(r.project)).join(', ')}\n`);
    return ExitCode.Usage;
  }
  const names = [...bad.map((r) => r.project), ...incomplete.map((r) => `${r.project} (${restoreIncomplete(r.report).join(', ')})`)];
  process.stderr.write(`error: the restore did not put back everything in: ${sanitizeLine(names.join(', '))}\n`);
  return ExitCode.NotRestored;
}

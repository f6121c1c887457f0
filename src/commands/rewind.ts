/**
 * `gns3-copilot diff [SESSION] [--to N] [--device NAME…] [--state] [--json]` and
 * `gns3-copilot rewind [SESSION] [--to N] [--device NAME…] [--dry-run] [--yes] [--json]`:
 * what a session changed in the lab since just before request N, and undoing it
 * (src/undo/rewind.ts). A rewind applies through the tool gate as the `cli`
 * caller, which may send what a restore needs in any mode (RESTORE_TOOLS, src/core/modes.ts);
 * `--yes` is its one approval, without it the plan is
 * printed and the exit code is 6. The command line's rewind holds the session's lease
 * (the TUI's /rewind rewinds the session the TUI itself holds).
 */
import type { Settings } from '../config/schema.js';
import { ExitCode, UsageError } from '../errors.js';
import { sanitizeText } from '../security/sanitize.js';
import { deviceOption } from './device-option.js';
import { SessionStore, type SessionRow } from '../sessions/store.js';
import { SessionLease } from '../sessions/lease.js';
import { CheckpointStore } from '../checkpoints/store.js';
import type { RewindReport } from '../undo/rewind.js';
import { reportText } from '../undo/rewind-report.js';
import { findSession, withLab } from '../undo/rewind-lab.js';
import { diffSessionState, stateDiffText, type StateDiffReport } from '../undo/state-diff-session.js';
import { StateBaselineStore } from '../sessions/state-baselines.js';

type Opts = Record<string, unknown>;

function toOpt(v: unknown, last: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > Math.max(1, last + 1))
    throw new UsageError(
      `--to: must be a request number 1..${Math.max(1, last + 1)} of this session, got "${typeof v === 'string' ? v : JSON.stringify(v)}"`,
    );
  return n;
}

function print(report: RewindReport, opts: Opts, kind: 'diff' | 'rewind', state?: StateDiffReport): void {
  if (opts.json) process.stdout.write(JSON.stringify({ ...jsonOf(report), ...(state ? { state } : {}) }) + '\n');
  else process.stdout.write(sanitizeText(reportText(report, kind)) + (state ? `\n${stateDiffText(state)}` : ''));
}

/** `--json`: `{session_id, to, devices: [{name, status, commands, remaining, …}], topology: {…}, faults_restored?: [id…], faults_reopened?: [id…]}` */
function jsonOf(r: RewindReport): Record<string, unknown> {
  return {
    session_id: r.session_id,
    to: r.to,
    ...(r.request_no !== undefined ? { request_no: r.request_no } : {}),
    ...(r.resumed ? { resumed: true } : {}),
    devices: r.devices.map((d) => ({
      name: d.name,
      status: d.status,
      ...(d.platform ? { platform: d.platform } : {}),
      checkpoint_request: d.request_no,
      commands: d.commands,
      remaining: d.remaining,
      diff: d.diff,
      ...(d.error ? { error: d.error } : {}),
    })),
    topology: r.topology,
    ...(r.faults_restored ? { faults_restored: r.faults_restored } : {}),
    ...(r.faults_reopened ? { faults_reopened: r.faults_reopened } : {}),
    ...(r.blocked ? { blocked: r.blocked.reason } : {}),
  };
}

export async function diffCommand(sessionArg: string | undefined, opts: Opts, settings: Settings, signal: AbortSignal): Promise<number> {
  const store = await SessionStore.open(settings.data_dir);
  try {
    const row = findSession(store, sessionArg, settings);
    const cp = new CheckpointStore(store.db);
    const to = toOpt(opts.to, cp.currentRequestNo(row.id)) ?? 1;
    const { diffSession } = await import('../undo/rewind.js');
    const devices = deviceOption(opts.device);
    const which = { sessionId: row.id, to, ...(devices ? { devices } : {}) };
    // --state: the operational differences beside the configuration diff (docs/checkpoints.md)
    const [report, state] = await withLab(
      settings,
      row,
      async (deps) =>
        [
          await diffSession(deps, which),
          // after the configuration reads: one console conversation per device at a time
          opts.state === true ? await diffSessionState(deps.ctx, new StateBaselineStore(store.db), which) : undefined,
        ] as const,
      store,
      signal,
    );
    print(report, opts, 'diff', state);
    return 0;
  } finally {
    store.close();
  }
}

/**
 * The session's lease for the whole rewind, as a resume takes it: a request another process is
 * running would otherwise be the rewind's target while unfinished and change the lab after it.
 */
function leaseForRewind(store: SessionStore, row: SessionRow): SessionLease {
  return SessionLease.acquire(store.db, row.id, {
    hint: `a request of session ${row.id.slice(0, 8)} is running there; rewind once it has ended (nothing was changed)`,
    exitCode: ExitCode.Usage,
  });
}

export async function rewindCommand(sessionArg: string | undefined, opts: Opts, settings: Settings, signal: AbortSignal): Promise<number> {
  const store = await SessionStore.open(settings.data_dir);
  let lease: SessionLease | undefined;
  try {
    const row = findSession(store, sessionArg, settings);
    lease = leaseForRewind(store, row);
    const cp = new CheckpointStore(store.db);
    const last = cp.currentRequestNo(row.id);
    const unfinished = cp.unfinishedRewind(row.id);
    // A rewind that died half way is finished first (same target); else the default undoes the last request.
    const to = toOpt(opts.to, last) ?? unfinished?.to_request ?? last;
    if (to < 1) throw new UsageError(`session ${row.id.slice(0, 8)} has no requests to rewind`);
    if (unfinished && unfinished.to_request === to) process.stderr.write(`resuming the unfinished rewind to before request ${to}\n`);
    const mode = row.copilot_mode;
    const devices = deviceOption(opts.device);
    const { runRewind } = await import('../undo/rewind.js');
    const report = await withLab(
      settings,
      row,
      (deps) =>
        runRewind(deps, {
          sessionId: row.id,
          to,
          ...(devices ? { devices } : {}),
          mode,
          dryRun: opts.dryRun === true,
          policy: settings.approve === 'never' ? 'never' : 'ask',
          approvalTools: settings.approval_tools,
          ...(opts.yes === true ? { approver: () => Promise.resolve({ kind: 'allow_once' as const }) } : {}),
          interactive: false,
        }),
      store,
      signal,
    );
    print(report, opts, 'rewind');
    if (report.blocked) {
      process.stderr.write(
        `error: ${report.blocked.reason}${report.blocked.needsApproval ? ' (rerun with --yes to apply this plan)' : ''}\n`,
      );
      return report.blocked.needsApproval ? ExitCode.ApprovalUnavailable : ExitCode.Usage;
    }
    const left = report.devices.filter((d) => d.status === 'remaining' || d.status === 'error');
    if (left.length > 0 || report.topology.status === 'partial') {
      process.stderr.write(
        `error: the rewind did not restore everything: ${[...left.map((d) => d.name), ...(report.topology.status === 'partial' ? ['topology'] : [])].join(', ')}\n`,
      );
      return ExitCode.NotRestored;
    }
    return 0;
  } finally {
    lease?.release();
    store.close();
  }
}

/**
 * `gns3-copilot faults list|show <id>|check|restore <id>`: the fault ledger of
 * inject mode (src/faults). `check` runs the repair checks of the open faults
 * through the deterministic checker, records the first pass of each as the time
 * it was fixed, prints a score, and exits 7 while a fault is still present (like
 * `check`). `restore` applies a fault's restore through the tool dispatch:
 * `--yes` is its approval, without it the plan is printed and the exit code is 6.
 */
import type { Settings } from '../config/schema.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { AbortedError, ExitCode, UsageError } from '../errors.js';
import { createLogger, type Logger } from '../log.js';
import { SessionStore } from '../sessions/store.js';
import { FaultStore, type Fault } from '../faults/store.js';
import { scoreOf, type RepairResult } from '../faults/check.js';
import { faultJson, formatCheck, formatFixed, formatList, formatShow, scoreLine } from '../faults/report.js';
import { MODE_SHORT_NAME, type CopilotMode } from '../core/modes.js';
import { timeOfDay } from '../core/clock.js';

export type FaultsAction = 'list' | 'show' | 'check' | 'restore';

type Opts = Record<string, unknown>;

const out = (s: string) => process.stdout.write(s);

function faultId(arg: string | undefined, store: FaultStore): Fault {
  const n = Number(arg?.replace(/^#/, ''));
  if (!arg || !Number.isInteger(n) || n < 1) throw new UsageError(`faults: a fault id is a number like 3 (got "${arg ?? ''}")`);
  const f = store.get(n);
  if (!f) throw new UsageError(`no fault #${n} (see \`gns3-copilot faults list\`)`);
  return f;
}

export async function faultsCommand(
  action: FaultsAction,
  positional: string[],
  opts: Opts,
  settings: Settings,
  signal: AbortSignal,
): Promise<number> {
  const sessions = await SessionStore.open(settings.data_dir);
  try {
    const store = new FaultStore(sessions.db);
    // --session: an id or a unique prefix, as `sessions show` takes it; one that names no session is an error, not an empty ledger
    const session = typeof opts.session === 'string' ? sessions.named(opts.session).id : undefined;
    const faults = () => store.list({ project: settings.project, session });
    switch (action) {
      case 'list': {
        const all = faults();
        if (opts.json) out(`${JSON.stringify({ ...scoreOf(all), faults: all.map(faultJson) })}\n`);
        else out(formatList(all, scoreOf(all)));
        return ExitCode.Ok;
      }
      case 'show': {
        const f = faultId(positional[0], store);
        if (opts.json) out(`${JSON.stringify({ ...faultJson(f), checks: store.checks(f.id) })}\n`);
        else out(formatShow(f, store.checks(f.id)));
        return ExitCode.Ok;
      }
      case 'check':
        if (opts.projects !== undefined) {
          const { classFaultsCheck } = await import('./faults-class.js');
          return await classFaultsCheck({ store, session, settings, log: createLogger(settings.log_level), signal }, opts);
        }
        if (opts.jobs !== undefined) throw new UsageError('--jobs: only with --projects GLOB');
        return await checkFaults(store, faults, opts, settings, signal);
      case 'restore':
        return await restore(faultId(positional[0], store), store, opts, settings, signal);
    }
  } finally {
    sessions.close();
  }
}

type Lab = { scope: import('../gns3/types.js').ProjectScope; ctx: import('../tools/types.js').ToolContext };

/**
 * One GNS3 client for the command, and the projects its faults live in: each opened at its first
 * use and kept with its tool services (the device pool and its console sessions) until `body` ends,
 * so the rounds of a --watch neither reopen a project nor reconnect to its consoles. Everything is
 * closed once, at the end, also when `body` fails or is aborted.
 */
async function withLabs<T>(
  settings: Settings,
  log: Logger,
  signal: AbortSignal,
  body: (lab: (projectId: string) => Promise<Lab>) => Promise<T>,
): Promise<T> {
  const [{ createKeychainGns3Client }, { keptOpen }, { closeServices }] = await Promise.all([
    import('../gns3/keychain-client.js'),
    import('../gns3/class-projects.js'),
    import('../tools/services.js'),
  ]);
  const client = createKeychainGns3Client(settings, log);
  const labs = keptOpen(client, () => new Map<string, unknown>());
  try {
    return await body(async (projectId) => {
      const { scope, kept: services } = await labs.open(projectId, signal);
      return { scope, ctx: { settings, signal, log, project: () => Promise.resolve(scope), services } };
    });
  } finally {
    for (const { kept } of labs.opened()) await closeServices(kept);
    await client.close().catch(() => undefined);
  }
}

/** One run of the open faults' repair checks, per project they live in (a ledger may span several labs). */
async function checkOpen(
  store: FaultStore,
  open: Fault[],
  lab: (projectId: string) => Promise<Lab>,
  settings: Settings,
  log: Logger,
  signal: AbortSignal,
): Promise<RepairResult[]> {
  const [{ runRepairChecks }, { poolFor }] = await Promise.all([import('../faults/check.js'), import('../devices/engine.js')]);
  const results: RepairResult[] = [];
  for (const projectId of new Set(open.map((f) => f.project_id))) {
    const mine = open.filter((f) => f.project_id === projectId);
    const { scope, ctx } = await lab(projectId);
    results.push(
      ...(await runRepairChecks(store, mine, { project: scope, settings, pool: poolFor(ctx.services, settings, log), signal, log })),
    );
  }
  return results;
}

/**
 * `faults check [--watch [S]]`: with --watch the open faults' checks run again every S seconds
 * until none is open, so each fix is recorded within S seconds of when it happened, not when
 * someone next ran `faults check` (the text output prints each fix as it is seen). Every round
 * checks on the projects and console sessions the first one opened (withLabs).
 */
async function checkFaults(store: FaultStore, faults: () => Fault[], opts: Opts, settings: Settings, signal: AbortSignal): Promise<number> {
  const log = createLogger(settings.log_level);
  const { watchSeconds } = await import('./check.js');
  const interval = watchSeconds(opts.watch as string | boolean | undefined);
  const latest = new Map<number, RepairResult>();
  const first = await withLabs(settings, log, signal, async (lab) => {
    const round = async () => {
      const results = await checkOpen(
        store,
        faults().filter((f) => f.state === 'open'),
        lab,
        settings,
        log,
        signal,
      );
      for (const r of results) latest.set(r.fault.id, { ...r, fixed_now: r.fixed_now || latest.get(r.fault.id)?.fixed_now === true });
      return results;
    };
    const first = await round();
    if (interval !== undefined) {
      if (!opts.json) out(formatCheck(faults(), first, scoreOf(faults())));
      while (faults().some((f) => f.state === 'open')) {
        await sleep(interval * 1000, undefined, { signal }).catch(() => {
          throw new AbortedError('faults check --watch interrupted');
        });
        const fixed = (await round()).filter((r) => r.fixed_now);
        const stamp = timeOfDay();
        const open = faults().filter((f) => f.state === 'open').length;
        if (!opts.json)
          out(
            fixed.length > 0
              ? fixed.map((r) => `${stamp} ${formatFixed(r)}\n`).join('')
              : `${stamp} no change: ${open} ${open === 1 ? 'fault' : 'faults'} still present\n`,
          );
      }
    }
    return first;
  });
  const all = faults();
  const score = scoreOf(all);
  if (opts.json) {
    const rows = all.map((f) => {
      const r = latest.get(f.id);
      return {
        ...faultJson(f),
        ...(r ? { check: { kind: r.kind ?? null, status: r.status, evidence: r.evidence, fixed_now: r.fixed_now } } : {}),
      };
    });
    out(`${JSON.stringify({ ...score, faults: rows })}\n`);
  } else if (interval !== undefined) out(`no fault is open · ${scoreLine(score)}\n`);
  else out(formatCheck(all, first, score));
  return score.open > 0 ? ExitCode.ChecksFailed : ExitCode.Ok;
}

/** Restores run in inject mode (its tools undo what its tools did), unless a classroom lock fixes another. */
async function restoreMode(): Promise<CopilotMode> {
  const { lockedSetting, describeLock } = await import('../config/locks.js');
  const lock = lockedSetting('mode');
  if (lock && lock.value !== 'troubleshooting_injection') {
    process.stderr.write(`notice: ${describeLock(lock)}: the restore runs in ${MODE_SHORT_NAME[lock.value]} mode\n`);
    return lock.value;
  }
  return 'troubleshooting_injection';
}

/**
 * The restore claims the fault first (open → restoring, one IMMEDIATE transaction in sessions.db): of two
 * `faults restore N` at once one applies the restore, the other is exit 2 before anything is sent.
 */
async function restore(f: Fault, store: FaultStore, opts: Opts, settings: Settings, signal: AbortSignal): Promise<number> {
  const claimed = store.claimRestore(f.id, 'faults restore');
  if (!claimed) throw new UsageError(`no fault #${f.id} (see \`gns3-copilot faults list\`)`);
  if ('restored' in claimed) throw new UsageError(`fault #${f.id} was restored already (${claimed.restored.restored_at})`);
  if ('busy' in claimed) throw new UsageError(`fault #${f.id} is being restored already by process ${claimed.busy.pid}`);
  try {
    return await restoreClaimed(claimed.fault, store, opts, settings, signal);
  } finally {
    store.releaseClaim(claimed.claim); // a restore that did not complete leaves the fault as it was
  }
}

async function restoreClaimed(f: Fault, store: FaultStore, opts: Opts, settings: Settings, signal: AbortSignal): Promise<number> {
  const log = createLogger(settings.log_level);
  const mode = await restoreMode();
  const [{ restoreFault, restoreCall }, { ToolRegistry }, { allTools }] = await Promise.all([
    import('../undo/fault-restore.js'),
    import('../tools/registry.js'),
    import('../tools/index.js'),
  ]);
  const call = restoreCall(f);
  const plan = `fault #${f.id} (${f.scenario ?? f.category} on ${f.target}): ${call.name} ${JSON.stringify(call.args)}`;
  const r = await withLabs(settings, log, signal, async (lab) =>
    restoreFault(
      f,
      { store, registry: new ToolRegistry(allTools()), ctx: (await lab(f.project_id)).ctx },
      {
        mode,
        policy: settings.approve === 'never' ? 'never' : 'ask',
        approvalTools: settings.approval_tools,
        ...(opts.yes === true ? { approver: () => Promise.resolve({ kind: 'allow_once' as const }) } : {}),
      },
    ),
  );
  if (opts.json)
    out(
      `${JSON.stringify({ id: f.id, status: r.status, restore: { tool: call.name, args: call.args }, ...(r.status !== 'restored' ? { reason: r.reason } : {}) })}\n`,
    );
  if (r.status === 'blocked') {
    if (!opts.json) out(`restore plan: ${plan}\n`);
    process.stderr.write(`error: ${r.reason}\n`);
    return r.needsApproval ? ExitCode.ApprovalUnavailable : ExitCode.Usage;
  }
  if (r.status === 'error') {
    process.stderr.write(`error: the restore of fault #${f.id} did not complete: ${r.reason}\n`);
    return ExitCode.NotRestored;
  }
  if (!opts.json) out(`restored ${plan}\n${scoreLine(scoreOf(store.list({ project: f.project_id })))}\n`);
  return ExitCode.Ok;
}

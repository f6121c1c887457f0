/**
 * `faults check --projects GLOB [--jobs N] [--watch [S]]`: the open faults' repair checks on
 * every matching project of the controller (the ledger filtered per project), at most N projects
 * at once; one row per project (open, fixed, restored unfixed, score, the first fault still
 * present) and the class totals, or --json `{projects: […], totals}`. A project whose checks
 * cannot run keeps its faults open (an error row), never fixed. Exit 0 when no fault of any
 * project is open, 7 while one is. The controller's project list is read once for the command,
 * and each project keeps its opened scope and its device sessions across --watch rounds.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Settings } from '../config/schema.js';
import { AbortedError, ExitCode, errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import { runLimited } from '../core/run-limited.js';
import { sanitizeLine } from '../security/sanitize.js';
import type { Fault, FaultStore } from '../faults/store.js';
import { scoreOf, type FaultScore, type RepairResult } from '../faults/check.js';
import { faultJson, formatFixed, scoreLine } from '../faults/report.js';
import { timeOfDay } from '../core/clock.js';

type Opts = Record<string, unknown>;

interface ProjectFaults {
  project: string;
  faults: Fault[];
  results: RepairResult[];
  error?: string;
}

const out = (s: string) => process.stdout.write(s);

function stillPresent(p: ProjectFaults): string {
  const f = p.faults.find((x) => x.state === 'open');
  if (!f) return p.faults.length === 0 ? 'no faults in the ledger' : '—';
  const r = p.results.find((x) => x.fault.id === f.id);
  return `#${f.id} ${f.target} ${f.scenario ?? f.category} still present${r ? ` (${r.status}) ${r.evidence}` : p.error ? ` (not checked: ${p.error})` : ''}`;
}

function classScore(rows: ProjectFaults[]): FaultScore {
  return scoreOf(rows.flatMap((r) => r.faults));
}

function table(rows: ProjectFaults[]): string {
  const w = Math.min(32, Math.max(7, ...rows.map((r) => sanitizeLine(r.project).length)));
  const head = `${'project'.padEnd(w)}  open  fixed  restored  ${'score'.padStart(7)}  still present`;
  const lines = rows.map((r) => {
    const s = scoreOf(r.faults);
    const first = sanitizeLine(stillPresent(r));
    return `${sanitizeLine(r.project).padEnd(w)}  ${String(s.open).padStart(4)}  ${String(s.fixed).padStart(5)}  ${String(s.restored).padStart(8)}  ${`${s.score}/${s.max_score}`.padStart(7)}  ${first.length > 90 ? `${first.slice(0, 89)}…` : first}`;
  });
  const open = rows.filter((r) => r.faults.some((f) => f.state === 'open')).length;
  return `${head}\n${lines.join('\n')}\n${rows.length} ${rows.length === 1 ? 'project' : 'projects'}: ${open} with a fault open · ${scoreLine(classScore(rows))}\n`;
}

function json(rows: ProjectFaults[]): string {
  const projects = rows.map((r) => {
    const latest = new Map(r.results.map((x) => [x.fault.id, x]));
    return {
      project: r.project,
      ...scoreOf(r.faults),
      faults: r.faults.map((f) => {
        const x = latest.get(f.id);
        return {
          ...faultJson(f),
          ...(x ? { check: { kind: x.kind ?? null, status: x.status, evidence: x.evidence, fixed_now: x.fixed_now } } : {}),
        };
      }),
      ...(r.error !== undefined ? { error: r.error } : {}),
    };
  });
  return `${JSON.stringify({ projects, totals: { projects: rows.length, ...classScore(rows) } })}\n`;
}

export interface ClassFaultsDeps {
  store: FaultStore;
  session: string | undefined;
  settings: Settings;
  log: Logger;
  signal: AbortSignal;
}

export async function classFaultsCheck(deps: ClassFaultsDeps, opts: Opts): Promise<number> {
  const [
    { classProjectList, keptOpen, parseJobs, checkProjectFlags, withClassSignal },
    { watchSeconds },
    { createKeychainGns3Client },
    services,
    engine,
    check,
  ] = await Promise.all([
    import('../gns3/class-projects.js'),
    import('./check.js'),
    import('../gns3/keychain-client.js'),
    import('../tools/services.js'),
    import('../devices/engine.js'),
    import('../faults/check.js'),
  ]);
  const glob = String(opts.projects);
  checkProjectFlags(glob, typeof opts.project === 'string');
  const jobs = parseJobs(opts.jobs as string | undefined);
  const interval = watchSeconds(opts.watch as string | boolean | undefined);
  const { settings, log } = deps;
  const client = createKeychainGns3Client(settings, log);
  // each project opened once, with its device sessions, for every round of a --watch
  const labs = keptOpen(client, () => new Map<string, unknown>());
  try {
    const listed = new Map((await classProjectList(client, glob, deps.signal)).map((p) => [p.name, p]));
    // by the listed project's id: a fault of an earlier project of the same name is not this one's
    const ledger = (project: string) => deps.store.list({ project: listed.get(project)!.project_id, session: deps.session });
    const repair = async (project: string, open: Fault[], signal: AbortSignal): Promise<RepairResult[]> => {
      const lab = await labs.open(listed.get(project)!, signal);
      const pool = engine.poolFor(lab.kept, settings, log);
      return check.runRepairChecks(deps.store, open, { project: lab.scope, settings, pool, signal, log });
    };
    const round = () =>
      withClassSignal(deps.signal, (signal) =>
        runLimited([...listed.keys()], jobs, async (project): Promise<ProjectFaults> => {
          const open = ledger(project).filter((f) => f.state === 'open');
          let results: RepairResult[] = [];
          let error: string | undefined;
          if (open.length > 0)
            results = await repair(project, open, signal).catch((err: unknown) => {
              error = errorMessage(err);
              return [];
            });
          // the ledger after the run: a fix this run recorded is in it
          return { project, faults: ledger(project), results, ...(error !== undefined ? { error } : {}) };
        }),
      );
    return await report(round, interval, opts, deps.signal);
  } finally {
    for (const { kept } of labs.opened()) await services.closeServices(kept);
    await client.close().catch(() => undefined);
  }
}

/** Runs the class once, or every `interval` seconds until no fault is open; prints and decides the exit code. */
async function report(
  round: () => Promise<ProjectFaults[]>,
  interval: number | undefined,
  opts: Opts,
  signal: AbortSignal,
): Promise<number> {
  const anyOpen = (rows: ProjectFaults[]) => rows.some((r) => r.faults.some((f) => f.state === 'open'));

  let rows = await round();
  if (interval !== undefined) {
    if (!opts.json) out(table(rows));
    while (anyOpen(rows)) {
      await sleep(interval * 1000, undefined, { signal }).catch(() => {
        throw new AbortedError('faults check --watch interrupted');
      });
      rows = await round();
      if (opts.json) continue;
      const stamp = timeOfDay();
      const fixed = rows.flatMap((r) =>
        r.results.filter((x) => x.fixed_now).map((x) => `${stamp} ${sanitizeLine(r.project)}: ${formatFixed(x)}`),
      );
      const open = classScore(rows).open;
      out(fixed.length > 0 ? `${fixed.join('\n')}\n` : `${stamp} no change: ${open} ${open === 1 ? 'fault' : 'faults'} still present\n`);
    }
    if (!opts.json) out(`no fault is open in any project · ${scoreLine(classScore(rows))}\n`);
  } else if (!opts.json) out(table(rows));
  if (opts.json) out(json(rows));
  return anyOpen(rows) ? ExitCode.ChecksFailed : ExitCode.Ok;
}

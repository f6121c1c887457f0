/**
 * `gns3-copilot check <file>`: runs a check file against the live lab and prints
 * a ✓/✗ table (or --json, or a --junit file); `--watch` re-runs until everything
 * passes; `--init FILE` writes a check file from the lab as it is. Exit 0 when
 * every check passes, 7 when one failed or errored, 2 for a bad file, 3 for the
 * controller.
 */
import { constants, existsSync } from 'node:fs';
import { open, rename, unlink, writeFile } from 'node:fs/promises';
import type { Settings } from '../config/schema.js';
import { ExitCode, UsageError } from '../errors.js';
import { sanitizeLine } from '../security/sanitize.js';
import { timeOfDay } from '../core/clock.js';
import { createLogger, type Logger } from '../log.js';
import { DevicePool } from '../devices/pool.js';
import type { Check } from '../check/schema.js';
import type { CheckReport } from '../check/run.js';

export interface CheckCommandOptions {
  file?: string;
  init?: string;
  json?: boolean;
  junit?: string;
  /** seconds between runs; true = the default */
  watch?: string | boolean;
  only?: string[];
  /** --stage NAME: run one stage of a staged file; with --init, the stage to write */
  stage?: string;
  /** --project was typed (it wins over the file's `project:`) */
  projectFromFlag?: boolean;
  /** --projects GLOB: grade every matching project (./check-class.ts) */
  projects?: string;
  /** --jobs N: with --projects, projects graded at once */
  jobs?: string;
}

const DEFAULT_WATCH_S = 5;

export function newCheckPool(settings: Settings, log?: Logger): DevicePool {
  return new DevicePool({
    openTimeoutMs: settings.connect_timeout_ms,
    commandTimeoutMs: settings.command_timeout_ms,
    confirmAllow: settings.confirm_allow,
    ...(log ? { log } : {}),
  });
}

/** `--watch [seconds]` of check and faults check: undefined when absent, the default for a bare flag. */
export function watchSeconds(w: string | boolean | undefined): number | undefined {
  if (w === undefined || w === false) return undefined;
  if (w === true) return DEFAULT_WATCH_S;
  const n = Number(w);
  if (!Number.isFinite(n) || n < 1 || n > 3600) throw new UsageError(`--watch: seconds between runs, 1..3600 (got ${w})`);
  return n;
}

/** The checks --only names (matching the shown name, case-insensitive); an unknown name is a usage error. */
export function selectChecks(checks: Check[], only: string[] | undefined, nameOf: (c: Check) => string): Check[] {
  if (!only || only.length === 0) return checks;
  const want = new Set(only.map((n) => n.toLowerCase()));
  const picked = checks.filter((c) => want.has(nameOf(c).toLowerCase()));
  const known = new Set(checks.map((c) => nameOf(c).toLowerCase()));
  const missing = only.filter((n) => !known.has(n.toLowerCase()));
  if (missing.length > 0)
    throw new UsageError(`--only: no check named "${missing[0]}" (names: ${checks.map(nameOf).slice(0, 20).join(', ')})`);
  return picked;
}

const writeFlags = constants.O_WRONLY | constants.O_NONBLOCK | constants.O_NOCTTY;
const junitError = (path: string, err: unknown) =>
  new UsageError(`--junit ${path}: cannot write the report there (${(err as NodeJS.ErrnoException).code ?? String(err)})`);

/**
 * --junit FILE is opened for writing before the run (a directory, a missing folder, a read-only
 * place is exit 2 before any check runs, not exit 1 after all of them); nothing is left behind:
 * a file this made is removed again, an existing one is not truncated until the report is written.
 */
async function checkJunitTarget(path: string): Promise<void> {
  let created = true;
  let fh = await open(path, writeFlags | constants.O_CREAT | constants.O_EXCL).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw junitError(path, err);
    created = false;
    return undefined;
  });
  fh ??= await open(path, writeFlags).catch((err: unknown) => {
    throw junitError(path, err);
  });
  await fh.close();
  if (created) await unlink(path).catch(() => undefined);
}

async function openProject(settings: Settings, project: string | undefined, log: Logger) {
  if (!project) throw new UsageError('no GNS3 project: pass --project <name|id> or put "project:" in the check file');
  const [{ createKeychainGns3Client }, { openProjectScope }] = await Promise.all([
    import('../gns3/keychain-client.js'),
    import('../gns3/client.js'),
  ]);
  const client = createKeychainGns3Client(settings, log);
  try {
    return { scope: await openProjectScope(client, project), client };
  } catch (err) {
    await client.close().catch(() => undefined);
    throw err;
  }
}

export async function checkCommand(settings: Settings, opts: CheckCommandOptions): Promise<number> {
  const log = createLogger(settings.log_level);
  const { checkProjectFlags, parseJobs } = await import('../gns3/class-projects.js');
  checkProjectFlags(opts.projects, opts.projectFromFlag === true);
  if (opts.jobs !== undefined && opts.projects === undefined) throw new UsageError('--jobs: only with --projects GLOB');
  const jobs = parseJobs(opts.jobs);
  if (opts.init !== undefined) {
    if (opts.projects !== undefined) throw new UsageError('check --init reads one project: --project NAME, not --projects');
    if (opts.file !== undefined) throw new UsageError('check --init FILE takes no other check file');
    return initCommand(
      settings,
      { out: opts.init, projectFromFlag: opts.projectFromFlag === true, ...(opts.stage !== undefined ? { stage: opts.stage } : {}) },
      log,
    );
  }
  if (opts.file === undefined) throw new UsageError('check: missing <file> (or --init FILE to write one from the lab)');
  if (opts.json && opts.junit !== undefined) throw new UsageError('--json and --junit: choose one');
  if (opts.junit !== undefined) await checkJunitTarget(opts.junit);
  const [{ loadCheckFile }, { runChecks }, report, { defaultName }, stages] = await Promise.all([
    import('../check/load.js'),
    import('../check/run.js'),
    import('../check/report.js'),
    import('../check/schema.js'),
    import('../check/stages.js'),
  ]);
  const file = await loadCheckFile(opts.file);
  const inStage = opts.stage !== undefined ? stages.pickStage(file, opts.stage, opts.file) : file.checks;
  const checks = selectChecks(inStage, opts.only, (c) => c.name ?? defaultName(c));
  const stageOf = stages.stageNames(file, checks);
  const interval = watchSeconds(opts.watch);
  if (opts.projects !== undefined) {
    const { classCheckCommand } = await import('./check-class.js');
    return classCheckCommand(
      settings,
      {
        glob: opts.projects,
        jobs,
        checks,
        stageOf,
        json: opts.json === true,
        ...(opts.junit !== undefined ? { junit: opts.junit } : {}),
        ...(interval !== undefined ? { interval } : {}),
        newPool: () => newCheckPool(settings, log),
        junitError,
      },
      log,
    );
  }
  const project = opts.projectFromFlag ? settings.project : (file.project ?? settings.project);
  const { scope, client } = await openProject(settings, project, log);
  const pool = newCheckPool(settings, log);
  const run = async () => stages.withStages(await runChecks(checks, { project: scope, settings, pool, log }), stageOf);
  try {
    let r: CheckReport = await run();
    if (interval !== undefined) {
      if (!opts.json) process.stdout.write(report.formatTable(r));
      while (r.passed < r.checks.length) {
        await new Promise((res) => setTimeout(res, interval * 1000));
        const next = await run();
        if (!opts.json) {
          const changes = report.formatChanges(r, next);
          const stamp = timeOfDay();
          process.stdout.write(
            changes.length > 0
              ? `${stamp} ${changes.join(`\n${stamp} `)}\n`
              : `${stamp} no change: ${next.passed}/${next.checks.length} passing\n`,
          );
        }
        r = next;
      }
      if (!opts.json)
        process.stdout.write(
          `${r.checks.length === 1 ? 'the check passes' : `all ${r.checks.length} checks pass`} · score ${r.score}/${r.max_score}\n`,
        );
    } else if (!opts.json) process.stdout.write(report.formatTable(r));
    if (opts.json) process.stdout.write(`${JSON.stringify(r)}\n`);
    if (opts.junit !== undefined)
      await writeFile(opts.junit, report.formatJunit(r)).catch((err: unknown) => {
        throw junitError(opts.junit!, err);
      });
    return r.passed === r.checks.length ? ExitCode.Ok : ExitCode.ChecksFailed;
  } finally {
    pool.closeAll();
    await client.close().catch(() => undefined);
  }
}

interface InitTarget {
  out: string;
  /** append this stage (or start a staged file with it) */
  stage?: string;
  projectFromFlag: boolean;
}

async function initCommand(settings: Settings, t: InitTarget, log: Logger): Promise<number> {
  const [{ describeLab, checkFileYaml }, stages] = await Promise.all([import('../check/init.js'), import('../check/stages.js')]);
  const stage = t.stage !== undefined ? stages.checkStageName(t.stage) : undefined;
  // an instructor's edited check file is never overwritten: refused, or (--stage) appended to, decided before the lab is read
  const existing = existsSync(t.out);
  if (existing && stage === undefined)
    throw new UsageError(`check --init: ${t.out} exists; move it away, name a new file or append a --stage (nothing written)`);
  let text: string | undefined;
  let project = settings.project;
  if (existing) {
    const { readCheckFileText } = await import('../check/read-file.js');
    text = await readCheckFileText(t.out);
    const { file } = stages.appendable(text, t.out, stage!); // a bad file or a duplicate stage: refused before the lab is read
    if (!t.projectFromFlag) project = file.project ?? project;
  }
  const { scope, client } = await openProject(settings, project, log);
  const pool = newCheckPool(settings, log);
  try {
    const lab = await describeLab({ project: scope, settings, pool, log });
    const where = `project ${sanitizeLine(lab.project)} to ${t.out}${stage !== undefined ? ` as stage "${sanitizeLine(stage)}"` : ''}`;
    if (text !== undefined) {
      // the new text replaces the file in one step (a temporary file renamed over it): never half an instructor's file
      const tmp = `${t.out}.${process.pid}.tmp`;
      await writeFile(tmp, stages.appendStageYaml(text, t.out, stage!, lab.checks), { flag: 'wx' });
      await rename(tmp, t.out).catch(async (err: unknown) => {
        await unlink(tmp).catch(() => undefined);
        throw err;
      });
    } else {
      const yaml = stage !== undefined ? stages.stagedFileYaml(lab.project, stage, lab.checks) : checkFileYaml(lab);
      await writeFile(t.out, yaml, { flag: 'wx' });
    }
    process.stdout.write(`wrote ${lab.checks.length} checks for ${where}\n`);
    return ExitCode.Ok;
  } finally {
    pool.closeAll();
    await client.close().catch(() => undefined);
  }
}

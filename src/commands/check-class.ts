/**
 * `gns3-copilot check FILE --projects GLOB [--jobs N] [--watch [S]]`: one check file graded on
 * every matching project of the controller (src/check/class-*.ts). Without --watch: a row per
 * project and the totals (or --json, or --junit with a testsuite per project). With --watch the
 * class is graded again every S seconds until every project passes: on a colour terminal the
 * grid (students × checks) is redrawn in place; with NO_COLOR or no terminal only the rows
 * that changed are printed, as lines. Exit 0 when every check of every project passes, 7 when
 * one fails or errors or a project cannot be graded, 130 on Ctrl-C.
 */
import { writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Settings } from '../config/schema.js';
import { ExitCode } from '../errors.js';
import type { Logger } from '../log.js';
import type { Check } from '../check/schema.js';
import type { CheckReport } from '../check/run.js';
import type { DevicePool } from '../devices/pool.js';
import { classPasses, gradeClass, type ClassReport } from '../check/class-run.js';
import { classJson, formatClassJunit, formatClassTable, totalsLine } from '../check/class-report.js';
import { changedRows, gridFrame, plainRows } from '../check/class-grid.js';
import { colorEnabled } from '../ui/style.js';
import { interruptSignal } from '../core/interrupt.js';
import { timeOfDay } from '../core/clock.js';

export interface ClassCheckOptions {
  glob: string;
  jobs: number;
  checks: Check[];
  /** each check's stage (staged files) */
  stageOf: (string | undefined)[];
  json: boolean;
  junit?: string;
  /** seconds between runs (--watch) */
  interval?: number;
  /** a device pool for one project (check's own settings for it) */
  newPool: () => DevicePool;
  /** the error --junit's write turns into */
  junitError: (path: string, err: unknown) => Error;
}

const out = (s: string) => process.stdout.write(s);

export async function classCheckCommand(settings: Settings, o: ClassCheckOptions, log: Logger): Promise<number> {
  const [
    { createKeychainGns3Client },
    { classProjectList, keptOpen, withClassSignal },
    { runChecks },
    { withStages },
    { defaultName, kindOf },
  ] = await Promise.all([
    import('../gns3/keychain-client.js'),
    import('../gns3/class-projects.js'),
    import('../check/run.js'),
    import('../check/stages.js'),
    import('../check/schema.js'),
  ]);
  const interrupt = interruptSignal();
  const { signal } = interrupt;
  const client = createKeychainGns3Client(settings, log);
  // each project keeps its scope and its device sessions across --watch runs
  const labs = keptOpen(client, o.newPool);
  try {
    // the controller's list is read once for the class, not again by every project
    const listed = new Map((await classProjectList(client, o.glob, signal)).map((p) => [p.name, p]));
    const projects = [...listed.keys()];
    const grade = async (project: string, round: AbortSignal): Promise<CheckReport> => {
      const lab = await labs.open(listed.get(project)!, round);
      return runChecks(o.checks, { project: lab.scope, settings, pool: lab.kept, signal: round, log });
    };
    const described = o.checks.map((c) => ({ name: c.name ?? defaultName(c), kind: kindOf(c), points: c.points }));
    const run = () =>
      withClassSignal(signal, (round) =>
        gradeClass({ projects, jobs: o.jobs, grade: (p) => grade(p, round), checks: described, staged: (r) => withStages(r, o.stageOf) }),
      );

    let r = await run();
    if (signal.aborted) return ExitCode.Aborted;
    if (o.interval !== undefined) {
      const watched = await watch(r, run, o.interval, settings, signal, o.json);
      if (watched === undefined) return ExitCode.Aborted;
      r = watched;
    } else if (!o.json) out(formatClassTable(r));
    if (o.json) out(classJson(r));
    if (o.junit !== undefined)
      await writeFile(o.junit, formatClassJunit(r)).catch((err: unknown) => {
        throw o.junitError(o.junit!, err);
      });
    return classPasses(r) ? ExitCode.Ok : ExitCode.ChecksFailed;
  } finally {
    interrupt.done();
    for (const { kept } of labs.opened()) kept.closeAll();
    await client.close().catch(() => undefined);
  }
}

/**
 * Grades the class again every `interval` seconds until every project passes; undefined when
 * interrupted (the grid's cursor is given back first). --json prints nothing until the end.
 */
async function watch(
  first: ClassReport,
  run: () => Promise<ClassReport>,
  interval: number,
  settings: Settings,
  signal: AbortSignal,
  json: boolean,
): Promise<ClassReport | undefined> {
  const live = !json && process.stdout.isTTY === true && colorEnabled(settings.color);
  const columns = () => process.stdout.columns ?? 120;
  let lines = 0;
  const draw = (r: ClassReport) => {
    const frame = `${gridFrame(r, { color: true, stamp: timeOfDay(), interval, columns: columns() })}\n`;
    // back to the first line of the previous frame, clear below it, draw the new one
    out(`${lines > 0 ? `\u001b[${lines}F\u001b[0J` : '\u001b[?25l'}${frame}`);
    lines = frame.split('\n').length - 1;
  };
  if (live) draw(first);
  else if (!json) out(`${plainRows(first, columns()).join('\n')}\n${totalsLine(first.totals)}\n`);
  let r = first;
  try {
    while (!classPasses(r)) {
      const slept = await sleep(interval * 1000, true, { signal }).catch(() => false);
      if (!slept) return undefined;
      const next = await run();
      if (signal.aborted) return undefined;
      if (live) draw(next);
      else if (!json) {
        const changed = changedRows(r, next, columns());
        const at = timeOfDay();
        out(
          changed.length > 0
            ? `${changed.map((l) => `${at} ${l}`).join('\n')}\n`
            : `${at} no change: ${next.totals.passing_projects}/${next.totals.projects} projects passing\n`,
        );
      }
      r = next;
    }
    if (!json) out(`every project passes every check · ${totalsLine(r.totals)}\n`);
    return r;
  } finally {
    if (live) out('\u001b[?25h');
  }
}

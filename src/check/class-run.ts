/**
 * A check file graded on every project of a class (`check FILE --projects GLOB`): each
 * project in parallel (at most `jobs` at once), one report per project with its time and
 * first failing check, and the class totals. A project that cannot be graded (not on the
 * controller any more, cannot be opened) is a row whose every check is an error with the
 * reason: never a pass, never a missing row.
 */
import { performance } from 'node:perf_hooks';
import { runLimited } from '../core/run-limited.js';
import { errorMessage } from '../errors.js';
import { summarize, type CheckReport, type CheckResult } from './run.js';

/** One project's report in a class run. */
export interface ClassRow extends CheckReport {
  /** wall time of the project's grading */
  duration_ms: number;
  /** the first check (file order) that did not pass, as "name: evidence" */
  first_failing?: string;
  /** why the project could not be graded (its checks are then all errors) */
  error?: string;
}

export interface ClassTotals {
  projects: number;
  /** projects whose every check passed */
  passing_projects: number;
  failing_projects: number;
  passed: number;
  failed: number;
  errors: number;
  score: number;
  max_score: number;
  duration_ms: number;
}

export interface ClassReport {
  projects: ClassRow[];
  totals: ClassTotals;
}

const round = (ms: number) => Math.round(ms);

/** The row of a project that could not be graded: every check an error carrying the reason. */
export function unreachableRow(
  project: string,
  names: { name: string; kind: CheckResult['kind']; points: number }[],
  why: string,
): CheckReport {
  const checks: CheckResult[] = names.map((c) => ({ ...c, status: 'error', evidence: `project not graded: ${why}`, duration_ms: 0 }));
  return summarize(project, checks);
}

export function firstFailing(r: CheckReport): string | undefined {
  const c = r.checks.find((x) => x.status !== 'pass');
  return c ? `${c.name}: ${c.evidence}` : undefined;
}

export function classTotals(rows: ClassRow[], durationMs: number): ClassTotals {
  const sum = (f: (r: ClassRow) => number) => rows.reduce((s, r) => s + f(r), 0);
  const passing = rows.filter((r) => r.checks.length > 0 && r.passed === r.checks.length).length;
  return {
    projects: rows.length,
    passing_projects: passing,
    failing_projects: rows.length - passing,
    passed: sum((r) => r.passed),
    failed: sum((r) => r.failed),
    errors: sum((r) => r.errors),
    score: sum((r) => r.score),
    max_score: sum((r) => r.max_score),
    duration_ms: round(durationMs),
  };
}

export interface GradeClassOptions {
  projects: string[];
  jobs: number;
  /** grades one project (its errors become that project's row) */
  grade(project: string): Promise<CheckReport>;
  /** what each check is, for the row of a project that cannot be graded */
  checks: { name: string; kind: CheckResult['kind']; points: number }[];
  /**
   * groups a report's checks into the file's stages (src/check/stages.ts withStages), applied
   * to an ungradable project's row too so that every row has the same stages
   */
  staged?: (r: CheckReport) => CheckReport;
}

export async function gradeClass(o: GradeClassOptions): Promise<ClassReport> {
  const t0 = performance.now();
  const rows = await runLimited(o.projects, o.jobs, async (project): Promise<ClassRow> => {
    const start = performance.now();
    let report: CheckReport;
    let error: string | undefined;
    try {
      report = await o.grade(project);
    } catch (err) {
      error = errorMessage(err);
      report = unreachableRow(project, o.checks, error);
    }
    if (o.staged) report = o.staged(report);
    // the controller's spelling of a project may differ from the pattern's: the row keeps the name listed
    const row: ClassRow = { ...report, project, duration_ms: round(performance.now() - start) };
    const first = firstFailing(report);
    if (first !== undefined) row.first_failing = first;
    if (error !== undefined) row.error = error;
    return row;
  });
  return { projects: rows, totals: classTotals(rows, performance.now() - t0) };
}

/** Every project graded and every check of each passed. */
export const classPasses = (r: ClassReport) => r.totals.projects > 0 && r.totals.passing_projects === r.totals.projects;

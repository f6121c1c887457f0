/**
 * How a class run (./class-run.ts) is shown: one row per project (score, passed/failed/errors,
 * time, the first failing check) and the totals; JUnit XML with one testsuite per project (and
 * stage); the --json document. The live grid of `--watch` is ./class-grid.ts.
 */
import { count } from '../core/plural.js';
import { sanitizeLine } from '../security/sanitize.js';
import { reportSuites, seconds } from './report.js';
import type { ClassReport, ClassTotals } from './class-run.js';

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const time = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

export function totalsLine(t: ClassTotals): string {
  return (
    `${count(t.projects, 'project')}: ${t.passing_projects} passing, ${t.failing_projects} not · ` +
    `${t.passed} passed, ${t.failed} failed, ${count(t.errors, 'error')} · score ${t.score}/${t.max_score} · ${time(t.duration_ms)}`
  );
}

/** The table: one row per project, then the totals. Names come from the controller and the file: shown, never obeyed. */
export function formatClassTable(r: ClassReport): string {
  const names = r.projects.map((p) => sanitizeLine(p.project));
  const w = Math.min(32, Math.max(7, ...names.map((n) => n.length)));
  const head = `${'project'.padEnd(w)}  ${'score'.padStart(7)}  pass  fail   err    time  first failing check`;
  const rows = r.projects.map((p, i) => {
    const score = `${p.score}/${p.max_score}`;
    const first = p.first_failing !== undefined ? clip(sanitizeLine(p.first_failing), 80) : '—';
    return (
      `${clip(names[i]!, w).padEnd(w)}  ${score.padStart(7)}  ${String(p.passed).padStart(4)}  ${String(p.failed).padStart(4)}  ` +
      `${String(p.errors).padStart(4)}  ${time(p.duration_ms).padStart(6)}  ${first}`
    );
  });
  return `${head}\n${rows.join('\n')}\n${totalsLine(r.totals)}\n`;
}

/**
 * JUnit XML: one testsuite per project (named after it), one testcase per check; with a staged
 * file one testsuite per project and stage, named "project: stage" as a single project's are.
 */
export function formatClassJunit(r: ClassReport): string {
  const t = r.totals;
  const tests = r.projects.reduce((s, p) => s + p.checks.length, 0);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="gns3-copilot check" tests="${tests}" failures="${t.failed}" errors="${t.errors}" time="${seconds(t.duration_ms)}">`,
    ...r.projects.flatMap(reportSuites),
    '</testsuites>',
    '',
  ].join('\n');
}

/** --json: `{projects: [report per project], totals}`. */
export function classJson(r: ClassReport): string {
  return `${JSON.stringify({ projects: r.projects, totals: r.totals })}\n`;
}

/**
 * How a check report is shown: a ✓/✗ table with the evidence and the score,
 * JUnit XML (one testcase per check, the evidence as the failure message; one
 * testsuite per stage of a staged file) for an LMS or CI, and the changes between
 * two runs for `--watch`. A staged file's table has a heading per stage.
 */
import { count } from '../core/plural.js';
import { sanitizeLine } from '../security/sanitize.js';
import type { CheckReport, CheckResult, StageSummary } from './run.js';

export const MARK = { pass: '✓', fail: '✗', error: '!' } as const;

export function formatTable(r: CheckReport): string {
  // names come from the check file or the controller's node names: shown, never obeyed
  const names = r.checks.map((c) => sanitizeLine(c.name));
  const width = Math.min(48, Math.max(4, ...names.map((n) => n.length)));
  const rows = r.checks.map((c, i) => {
    const n = names[i]!;
    const name = n.length > width ? `${n.slice(0, width - 1)}…` : n.padEnd(width);
    return `${MARK[c.status]} ${name}  ${sanitizeLine(c.evidence)}`;
  });
  const tail = `${r.passed} passed, ${r.failed} failed, ${count(r.errors, 'error')} · score ${r.score}/${r.max_score} · project ${sanitizeLine(r.project)}`;
  if (!r.stages) return `${rows.join('\n')}\n${tail}\n`;
  // a staged file: each stage's heading with its counts, its checks under it
  const out: string[] = [];
  for (const s of r.stages) {
    out.push(
      `── ${sanitizeLine(s.name)} · ${s.passed} passed, ${s.failed} failed, ${count(s.errors, 'error')} · score ${s.score}/${s.max_score}`,
    );
    r.checks.forEach((c, i) => c.stage === s.name && out.push(rows[i]!));
  }
  return `${out.join('\n')}\n${tail}\n`;
}

export const xml = (s: string) =>
  s
    // characters XML 1.0 cannot carry at all (controls, U+FFFE/U+FFFF, halves of a surrogate pair)
    .replace(
      /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
      '',
    )
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

export const seconds = (ms: number) => (ms / 1000).toFixed(3);

function testcase(c: CheckResult): string {
  const open = `    <testcase classname="${xml(`gns3-copilot.${c.kind}`)}" name="${xml(c.name)}" time="${seconds(c.duration_ms)}">`;
  const props = `      <properties><property name="points" value="${c.points}"/></properties>`;
  if (c.status === 'pass') return `${open}\n${props}\n      <system-out>${xml(c.evidence)}</system-out>\n    </testcase>`;
  const tag = c.status === 'fail' ? 'failure' : 'error';
  return `${open}\n${props}\n      <${tag} message="${xml(c.evidence)}" type="${c.kind}">${xml(c.evidence)}</${tag}>\n    </testcase>`;
}

/** One testsuite: the project's checks, or (a staged file) one stage's, named "project: stage". */
export function testsuite(name: string, s: Omit<StageSummary, 'name'>, checks: CheckResult[]): string[] {
  const time = seconds(checks.reduce((sum, c) => sum + c.duration_ms, 0));
  return [
    `  <testsuite name="${xml(name)}" tests="${checks.length}" failures="${s.failed}" errors="${s.errors}" time="${time}">`,
    `    <properties><property name="score" value="${s.score}"/><property name="max_score" value="${s.max_score}"/></properties>`,
    ...checks.map(testcase),
    '  </testsuite>',
  ];
}

/**
 * A report's testsuites: one per stage of a staged file, named "project: stage" (CI readers
 * such as GitLab and Jenkins show flat suites best), or one named after the project.
 */
export function reportSuites(r: CheckReport): string[] {
  if (!r.stages) return testsuite(r.project, r, r.checks);
  return r.stages.flatMap((s) =>
    testsuite(
      `${r.project}: ${s.name}`,
      s,
      r.checks.filter((c) => c.stage === s.name),
    ),
  );
}

export function formatJunit(r: CheckReport): string {
  const total = r.checks.reduce((s, c) => s + c.duration_ms, 0);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="gns3-copilot check" tests="${r.checks.length}" failures="${r.failed}" errors="${r.errors}" time="${seconds(total)}">`,
    ...reportSuites(r),
    '</testsuites>',
    '',
  ].join('\n');
}

/** Lines for the checks whose status changed since the previous run (matched by position and name). */
export function formatChanges(prev: CheckReport, next: CheckReport): string[] {
  const out: string[] = [];
  next.checks.forEach((c: CheckResult, i) => {
    const before = prev.checks[i];
    if (!before || before.name !== c.name || before.status === c.status) return;
    out.push(`${MARK[before.status]} → ${MARK[c.status]} ${sanitizeLine(c.name)}  ${sanitizeLine(c.evidence)}`);
  });
  return out;
}

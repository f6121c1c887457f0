/**
 * How a check report is shown: a ✓/✗ table with the evidence and the score,
 * JUnit XML (one testcase per check, the evidence as the failure message) for
 * an LMS or CI, and the changes between two runs for `--watch`.
 */
import { count } from '../core/plural.js';
import { sanitizeLine } from '../security/sanitize.js';
import type { CheckReport, CheckResult } from './run.js';

const MARK = { pass: '✓', fail: '✗', error: '!' } as const;

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
  return `${rows.join('\n')}\n${tail}\n`;
}

const xml = (s: string) =>
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

export function formatJunit(r: CheckReport): string {
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const total = r.checks.reduce((s, c) => s + c.duration_ms, 0);
  const cases = r.checks.map((c) => {
    const open = `    <testcase classname="${xml(`gns3-copilot.${c.kind}`)}" name="${xml(c.name)}" time="${seconds(c.duration_ms)}">`;
    const props = `      <properties><property name="points" value="${c.points}"/></properties>`;
    if (c.status === 'pass') return `${open}\n${props}\n      <system-out>${xml(c.evidence)}</system-out>\n    </testcase>`;
    const tag = c.status === 'fail' ? 'failure' : 'error';
    return `${open}\n${props}\n      <${tag} message="${xml(c.evidence)}" type="${c.kind}">${xml(c.evidence)}</${tag}>\n    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="gns3-copilot check" tests="${r.checks.length}" failures="${r.failed}" errors="${r.errors}" time="${seconds(total)}">`,
    `  <testsuite name="${xml(r.project)}" tests="${r.checks.length}" failures="${r.failed}" errors="${r.errors}" time="${seconds(total)}">`,
    `    <properties><property name="score" value="${r.score}"/><property name="max_score" value="${r.max_score}"/></properties>`,
    ...cases,
    '  </testsuite>',
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

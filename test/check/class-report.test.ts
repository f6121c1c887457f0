/**
 * The class views as strings: the table (a row per project, the totals), JUnit with a testsuite
 * per project, and the --watch grid frame (students × checks, ✓/✗/!) with the changed rows a
 * non-terminal prints. gradeClass itself runs real jobs: a project whose grading throws is a row
 * of errors, never a pass.
 */
import { describe, expect, it } from 'vitest';
import { classPasses, gradeClass, type ClassReport } from '../../src/check/class-run.js';
import { formatClassJunit, formatClassTable } from '../../src/check/class-report.js';
import { changedRows, gridFrame, plainRows } from '../../src/check/class-grid.js';
import { summarize, type CheckResult } from '../../src/check/run.js';
import { withStages } from '../../src/check/stages.js';
import type { CheckStatus } from '../../src/check/plan.js';
import { parseXml } from './xml.js';

const NAMES = ['node R1 started', 'R1 interface lo up', 'R1 route 10.99.0.0/16'];
const checks = NAMES.map((name) => ({ name, kind: 'command' as const, points: 1 }));

function graded(statuses: Record<string, CheckStatus[] | Error>) {
  return gradeClass({
    projects: Object.keys(statuses),
    jobs: 2,
    checks,
    grade: (project) => {
      const s = statuses[project]!;
      if (s instanceof Error) return Promise.reject(s);
      const results: CheckResult[] = s.map((status, i) => ({
        ...checks[i]!,
        status,
        evidence: status === 'pass' ? 'ok' : `${NAMES[i]} is not so`,
        duration_ms: 5,
      }));
      return Promise.resolve(summarize(project, results));
    },
  });
}

const CLASS = () =>
  graded({
    'student-01': ['pass', 'pass', 'pass'],
    'student-02': ['pass', 'pass', 'fail'],
    'student-03': new Error('cannot reach the controller project'),
  });

describe('gradeClass', () => {
  it('a row per project in order, the first failing check, the totals; a project that throws is all errors', async () => {
    const r = await CLASS();
    expect(r.projects.map((p) => [p.project, p.passed, p.failed, p.errors, p.score, p.max_score])).toEqual([
      ['student-01', 3, 0, 0, 3, 3],
      ['student-02', 2, 1, 0, 2, 3],
      ['student-03', 0, 0, 3, 0, 3],
    ]);
    expect(r.projects[0]!.first_failing).toBeUndefined();
    expect(r.projects[1]!.first_failing).toBe('R1 route 10.99.0.0/16: R1 route 10.99.0.0/16 is not so');
    expect(r.projects[2]!.error).toBe('cannot reach the controller project');
    expect(r.projects[2]!.checks.every((c) => c.status === 'error' && c.evidence.includes('project not graded'))).toBe(true);
    expect(r.totals).toMatchObject({
      projects: 3,
      passing_projects: 1,
      failing_projects: 2,
      passed: 5,
      failed: 1,
      errors: 3,
      score: 5,
      max_score: 9,
    });
    expect(classPasses(r)).toBe(false);
    const all = await graded({ a: ['pass', 'pass', 'pass'], b: ['pass', 'pass', 'pass'] });
    expect(classPasses(all)).toBe(true);
  });

  it('never more than --jobs projects at once', async () => {
    let now = 0;
    let peak = 0;
    await gradeClass({
      projects: Array.from({ length: 12 }, (_, i) => `p${i}`),
      jobs: 3,
      checks,
      grade: async (project) => {
        peak = Math.max(peak, ++now);
        await new Promise((res) => setImmediate(res));
        now--;
        return summarize(project, []);
      },
    });
    expect(peak).toBe(3);
  });
});

describe('the class table and JUnit', () => {
  it('one row per project with score, counts, time and first failing check, then the totals', async () => {
    const text = formatClassTable(await CLASS());
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^project\s+score\s+pass\s+fail\s+err\s+time\s+first failing check$/);
    expect(lines[1]).toMatch(/^student-01\s+3\/3\s+3\s+0\s+0\s+\d+\.\ds\s+—$/);
    expect(lines[2]).toMatch(/^student-02\s+2\/3\s+2\s+1\s+0\s+\d+\.\ds\s+R1 route 10\.99\.0\.0\/16: R1 route 10\.99\.0\.0\/16 is not so$/);
    expect(lines[3]).toMatch(/^student-03\s+0\/3\s+0\s+0\s+3\s+\d+\.\ds\s+node R1 started: project not graded: cannot reach/);
    expect(lines[4]).toMatch(/^3 projects: 1 passing, 2 not · 5 passed, 1 failed, 3 errors · score 5\/9 · \d+\.\ds$/);
  });

  it('JUnit: one testsuite per project, named after it, with its failures and errors', async () => {
    const doc = parseXml(formatClassJunit(await CLASS()));
    expect(doc.attrs).toMatchObject({ tests: '9', failures: '1', errors: '3' });
    expect(doc.children.map((s) => [s.attrs.name, s.attrs.tests, s.attrs.failures, s.attrs.errors])).toEqual([
      ['student-01', '3', '0', '0'],
      ['student-02', '3', '1', '0'],
      ['student-03', '3', '0', '3'],
    ]);
    const cases = doc.children[1]!.children.filter((c) => c.name === 'testcase');
    expect(cases.map((c) => c.attrs.name)).toEqual(NAMES);
    expect(cases[2]!.children.find((c) => c.name === 'failure')?.attrs.message).toBe('R1 route 10.99.0.0/16 is not so');
  });
});

describe('the class JUnit of a staged file', () => {
  const STAGE_OF = ['1 nodes', '1 nodes', '2 routes'];
  const staged = () =>
    gradeClass({
      projects: ['student-01', 'student-02'],
      jobs: 2,
      checks,
      staged: (r) => withStages(r, STAGE_OF),
      grade: (project) => {
        if (project === 'student-02') return Promise.reject(new Error('project is closed'));
        const results: CheckResult[] = checks.map((c, i) => ({
          ...c,
          status: i === 2 ? 'fail' : 'pass',
          evidence: i === 2 ? 'no route' : 'ok',
          duration_ms: 5,
        }));
        return Promise.resolve(summarize(project, results));
      },
    });

  it('one testsuite per project and stage, named "project: stage"; an ungradable project keeps the stages', async () => {
    const r = await staged();
    expect(r.projects.map((p) => p.stages?.map((s) => [s.name, s.passed, s.failed, s.errors]))).toEqual([
      [
        ['1 nodes', 2, 0, 0],
        ['2 routes', 0, 1, 0],
      ],
      [
        ['1 nodes', 0, 0, 2],
        ['2 routes', 0, 0, 1],
      ],
    ]);
    const doc = parseXml(formatClassJunit(r));
    expect(doc.attrs).toMatchObject({ tests: '6', failures: '1', errors: '3' });
    expect(doc.children.map((s) => [s.attrs.name, s.attrs.tests, s.attrs.failures, s.attrs.errors])).toEqual([
      ['student-01: 1 nodes', '2', '0', '0'],
      ['student-01: 2 routes', '1', '1', '0'],
      ['student-02: 1 nodes', '2', '0', '2'],
      ['student-02: 2 routes', '1', '0', '1'],
    ]);
    const cases = doc.children[1]!.children.filter((c) => c.name === 'testcase');
    expect(cases.map((c) => c.attrs.name)).toEqual([NAMES[2]]);
    expect(cases[0]!.children.find((c) => c.name === 'failure')?.attrs.message).toBe('no route');
  });
});

describe('the --watch grid', () => {
  it('a frame: title, numbered columns, a ✓/✗/! row per student with the score, totals, legend', async () => {
    const frame = gridFrame(await CLASS(), { color: false, stamp: '10:00:00', interval: 5, columns: 100 });
    expect(frame.split('\n')).toEqual([
      'class grid · 3 projects × 3 checks · 10:00:00 · every 5 s (Ctrl-C to stop)',
      'project     1 2 3    score',
      'student-01  ✓ ✓ ✓      3/3',
      'student-02  ✓ ✓ ✗      2/3  R1 route 10.99.0.0/16: R1 route 10.99.0.0/16 is not so',
      expect.stringMatching(/^student-03 {2}! ! ! {6}0\/3 {2}node R1 started: project not graded: cannot reach the controller proje…$/),
      expect.stringMatching(/^3 projects: 1 passing, 2 not · 5 passed, 1 failed, 3 errors · score 5\/9 · /),
      '1 node R1 started',
      '2 R1 interface lo up',
      '3 R1 route 10.99.0.0/16',
    ]);
    for (const line of frame.split('\n')) expect(line.length).toBeLessThanOrEqual(100);
  });

  it('in colour the marks are green, red and yellow; the text is the same without the codes', async () => {
    const r = await CLASS();
    const colored = gridFrame(r, { color: true, stamp: '10:00:00', interval: 5, columns: 100 });
    expect(colored).toContain('\u001b[32m✓\u001b[39m');
    expect(colored).toContain('\u001b[31m✗\u001b[39m');
    expect(colored).toContain('\u001b[33m!\u001b[39m');
    expect(colored.replace(/\u001b\[[0-9;]*m/g, '')).toBe(gridFrame(r, { color: false, stamp: '10:00:00', interval: 5, columns: 100 }));
  });

  it('ten or more checks: two-digit columns stay aligned under their numbers', async () => {
    const ten = Array.from({ length: 11 }, (_, i) => ({ name: `c${i + 1}`, kind: 'command' as const, points: 1 }));
    const r = await gradeClass({
      projects: ['s1'],
      jobs: 1,
      checks: ten,
      grade: (p) =>
        Promise.resolve(
          summarize(
            p,
            ten.map((c, i) => ({ ...c, status: i === 10 ? 'fail' : 'pass', evidence: 'e', duration_ms: 1 })),
          ),
        ),
    });
    const lines = gridFrame(r, { color: false, stamp: 'x', interval: 1 }).split('\n');
    expect(lines[1]).toBe('project  1 2 3 4 5 6 7 8 9 10 11    score');
    expect(lines[2]).toBe('s1       ✓ ✓ ✓ ✓ ✓ ✓ ✓ ✓ ✓ ✓  ✗     10/11  c11: e');
    expect(lines[2]!.indexOf('✗')).toBe(lines[1]!.indexOf('11'));
  });

  it('without a terminal: only the rows that changed, as plain lines', async () => {
    const before = await CLASS();
    const after: ClassReport = await graded({
      'student-01': ['pass', 'pass', 'pass'],
      'student-02': ['pass', 'pass', 'pass'],
      'student-03': new Error('cannot reach the controller project'),
    });
    expect(changedRows(before, after)).toEqual(['student-02  ✓ ✓ ✓      3/3']);
    expect(changedRows(after, after)).toEqual([]);
    expect(plainRows(before)).toHaveLength(3);
    expect(plainRows(before).join('\n')).not.toMatch(/\u001b/);
  });
});

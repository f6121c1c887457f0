/**
 * Stages in check files without a lab: the loader's table of valid and invalid staged files
 * (one-line errors naming the line and field, exit 2), picking a stage, the per-stage report
 * (table headings, JUnit testsuites) and the text `check --init --stage` writes or appends.
 */
import { describe, expect, it } from 'vitest';
import { parseCheckText } from '../../src/check/load.js';
import { formatJunit, formatTable } from '../../src/check/report.js';
import { summarize, type CheckResult } from '../../src/check/run.js';
import { MAX_CHECKS } from '../../src/check/schema.js';
import { appendStageYaml, firstStageName, pickStage, stagedFileYaml, stageNames, withStages } from '../../src/check/stages.js';
import { parseXml } from './xml.js';

const STAGED = `project: lab
stages:
  - name: 1 addressing
    checks:
      - node: {name: R1}
      - interface: {device: R1, name: eth0, ip: 10.0.1.1/24}
  - name: 2 routing
    checks:
      - ospf_neighbor: {device: R1, neighbor: 10.255.255.2}
`;

const bad = (text: string) => {
  try {
    parseCheckText(text, 'f.yaml');
  } catch (err) {
    return `${(err as Error).message} (exit ${(err as { exitCode: number }).exitCode})`;
  }
  return 'parsed';
};

describe('a staged check file', () => {
  it('parses into its stages, and `checks` holds every stage’s checks in file order (the same objects)', () => {
    const f = parseCheckText(STAGED, 'f.yaml');
    expect(f.stages!.map((s) => [s.name, s.checks.length])).toEqual([
      ['1 addressing', 2],
      ['2 routing', 1],
    ]);
    expect(f.checks).toHaveLength(3);
    expect(f.checks[2]).toBe(f.stages![1]!.checks[0]);
    expect(stageNames(f, f.checks)).toEqual(['1 addressing', '1 addressing', '2 routing']);
    // a plain file stays valid and has no stages
    const plain = parseCheckText('checks:\n  - node: {name: R1}\n', 'p.yaml');
    expect(plain.stages).toBeUndefined();
    expect(stageNames(plain, plain.checks)).toEqual([undefined]);
  });

  it.each([
    [
      'both checks and stages',
      'checks:\n  - node: {name: R1}\nstages:\n  - name: a\n    checks: [{node: {name: R1}}]\n',
      /^f\.yaml:4: stages: a file has "checks:" or "stages:", not both \(exit 2\)$/,
    ],
    [
      'a stage without a name',
      'stages:\n  - checks: [{node: {name: R1}}]\n',
      /^f\.yaml:2: stages\[0\]: a stage needs a name \(a non-empty string\) \(exit 2\)$/,
    ],
    [
      'an empty stage name',
      'stages:\n  - name: " "\n    checks: [{node: {name: R1}}]\n',
      /^f\.yaml:2: stages\[0\]\.name: a stage needs a name/,
    ],
    [
      'a duplicate stage name (case-insensitive)',
      'stages:\n  - name: Base\n    checks: [{node: {name: R1}}]\n  - name: base\n    checks: [{node: {name: R2}}]\n',
      /^f\.yaml:4: stages\[1\]\.name: duplicate stage name "base" \(also stages\[0\]\) \(exit 2\)$/,
    ],
    [
      'a stage without checks',
      'stages:\n  - name: a\n    checks: []\n',
      /^f\.yaml:3: stages\[0\]\.checks: a non-empty list of checks \(exit 2\)$/,
    ],
    [
      'an unknown key in a stage',
      'stages:\n  - name: a\n    check: [{node: {name: R1}}]\n',
      /^f\.yaml:3: stages\[0\]\.check: unknown key \(expected name, checks\) \(exit 2\)$/,
    ],
    ['an empty stages list', 'stages: []\n', /^f\.yaml:1: stages: a non-empty list of stages/],
    [
      'a bad check inside a stage',
      'stages:\n  - name: a\n    checks:\n      - route: {device: R1, prefix: 10.0.0.0}\n',
      /^f\.yaml:4: stages\[0\]\.checks\[0\]\.route\.prefix: a prefix like 10\.0\.1\.0\/24 \(exit 2\)$/,
    ],
    [
      'a stage name on two lines',
      'stages:\n  - name: "a\\nb"\n    checks: [{node: {name: R1}}]\n',
      /stages\[0\]\.name: a stage name is one line of text \(exit 2\)$/,
    ],
  ])('%s is a one-line error, exit 2', (_what, text, want) => {
    expect(bad(text)).toMatch(want);
  });

  it(`bounds the total: ${MAX_CHECKS} checks over several stages are fine, one more is a bad file`, () => {
    const stage = (name: string, n: number) =>
      `  - name: ${name}\n    checks:\n${Array.from({ length: n }, (_, i) => `      - node: {name: ${name}${i}}\n`).join('')}`;
    expect(parseCheckText(`stages:\n${stage('a', MAX_CHECKS / 2)}${stage('b', MAX_CHECKS / 2)}`, 'f.yaml').checks).toHaveLength(MAX_CHECKS);
    expect(bad(`stages:\n${stage('a', MAX_CHECKS / 2)}${stage('b', MAX_CHECKS / 2 + 1)}`)).toBe(
      `f.yaml:2: stages: at most ${MAX_CHECKS} checks in a file (this one has ${MAX_CHECKS + 1}) (exit 2)`,
    );
  });

  it('--stage picks one stage by name (case-insensitive); an unknown one lists the stages; a plain file has none', () => {
    const f = parseCheckText(STAGED, 'f.yaml');
    expect(pickStage(f, '2 ROUTING', 'f.yaml')).toEqual([f.checks[2]]);
    expect(() => pickStage(f, '3 bgp', 'f.yaml')).toThrow(
      '--stage: no stage named "3 bgp" in f.yaml (stages: "1 addressing", "2 routing")',
    );
    const plain = parseCheckText('checks:\n  - node: {name: R1}\n', 'p.yaml');
    expect(() => pickStage(plain, 'x', 'p.yaml')).toThrow('--stage x: p.yaml has no stages');
  });
});

const result = (name: string, status: CheckResult['status'], points = 1): CheckResult => ({
  name,
  kind: 'node',
  status,
  evidence: `${name}: evidence`,
  points,
  duration_ms: 2,
});

describe('the per-stage report', () => {
  const report = withStages(summarize('lab', [result('a1', 'pass'), result('a2', 'fail', 2), result('b1', 'error')]), [
    'one',
    'one',
    'two',
  ]);

  it('counts each stage and keeps the totals; a plain report is left as it was', () => {
    expect(report.stages).toEqual([
      { name: 'one', passed: 1, failed: 1, errors: 0, score: 1, max_score: 3 },
      { name: 'two', passed: 0, failed: 0, errors: 1, score: 0, max_score: 1 },
    ]);
    expect(report).toMatchObject({ passed: 1, failed: 1, errors: 1, score: 1, max_score: 4 });
    expect(report.checks.map((c) => c.stage)).toEqual(['one', 'one', 'two']);
    const plain = summarize('lab', [result('a1', 'pass')]);
    expect(withStages(plain, [undefined])).toBe(plain);
  });

  it('the table has a heading per stage with its checks under it, then the totals', () => {
    expect(formatTable(report)).toBe(
      [
        '── one · 1 passed, 1 failed, 0 errors · score 1/3',
        '✓ a1    a1: evidence',
        '✗ a2    a2: evidence',
        '── two · 0 passed, 0 failed, 1 error · score 0/1',
        '! b1    b1: evidence',
        '1 passed, 1 failed, 1 error · score 1/4 · project lab',
        '',
      ].join('\n'),
    );
  });

  it('JUnit has one testsuite per stage', () => {
    const doc = parseXml(formatJunit(report));
    expect(doc.attrs).toMatchObject({ tests: '3', failures: '1', errors: '1' });
    expect(doc.children.map((s) => [s.attrs.name, s.attrs.tests, s.attrs.failures, s.attrs.errors])).toEqual([
      ['lab: one', '2', '1', '0'],
      ['lab: two', '1', '0', '1'],
    ]);
    expect(doc.children[0]!.children.filter((c) => c.name === 'testcase').map((c) => c.attrs.name)).toEqual(['a1', 'a2']);
  });
});

describe('check --init --stage writes', () => {
  const checks = [{ node: { name: 'R9', status: 'started' as const } }];

  it('a new staged file with the one stage', () => {
    const text = stagedFileYaml('lab', '1 base', checks);
    expect(text).toContain('  - name: 1 base\n    checks:\n      - node: { name: R9, status: started }\n');
    expect(parseCheckText(text, 'n.yaml').stages!.map((s) => s.name)).toEqual(['1 base']);
  });

  it('a plain file converted: its checks become a first stage named after the file, comments kept, the new stage last', () => {
    const plain = '# the instructor wrote this\nproject: lab\nchecks:\n  - node: {name: R1} # R1 first\n    points: 3\n';
    const out = appendStageYaml(plain, '/x/ospf-lab.yaml', '2 routing', checks);
    expect(out).toContain('# the instructor wrote this');
    expect(out).toContain('# R1 first');
    const f = parseCheckText(out, 'o.yaml');
    expect(f.project).toBe('lab');
    expect(f.stages!.map((s) => [s.name, s.checks.length])).toEqual([
      ['ospf-lab', 1],
      ['2 routing', 1],
    ]);
    expect(f.stages![0]!.checks[0]).toEqual({ node: { name: 'R1', status: 'started' }, points: 3 });
    expect(firstStageName('dir/.yaml')).toBe('checks');
  });

  it('a staged file appended to; a stage name already there is refused (case-insensitive)', () => {
    const out = appendStageYaml(STAGED, 'f.yaml', '3 services', checks);
    expect(parseCheckText(out, 'f.yaml').stages!.map((s) => s.name)).toEqual(['1 addressing', '2 routing', '3 services']);
    expect(out).toMatch(/\n {2}- name: 3 services\n {4}checks:\n {6}- node: \{ name: R9, status: started \}\n$/);
    expect(() => appendStageYaml(STAGED, 'f.yaml', '2 Routing', checks)).toThrow(
      'check --init: f.yaml already has a stage "2 Routing" (stages: "1 addressing", "2 routing"); name a new one (nothing written)',
    );
    expect(() => appendStageYaml('checks:\n  - node: {name: R1}\n', 'lab.yaml', 'LAB', checks)).toThrow('already has a stage "LAB"');
  });

  it('never past the bounds: appending over the check count is refused', () => {
    const many = Array.from({ length: MAX_CHECKS }, (_, i) => ({ node: { name: `R${i}` } }));
    expect(() => appendStageYaml(STAGED, 'f.yaml', 'more', many)).toThrow(`at most ${MAX_CHECKS} checks in a file`);
  });
});

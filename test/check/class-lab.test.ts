/**
 * `check FILE --projects GLOB` on the real device lab: a fake GNS3 controller holding a class
 * (student-01 … student-04 and a teacher project) whose nodes are the lab's real FRR routers
 * (each student's "R1" is another router's console; student-04's console is closed), the built
 * CLI run as a process. Rows and totals, --json, --junit testsuites, --watch as changed lines
 * without a terminal and as a live grid in a real terminal (tmux), Ctrl-C = 130.
 * Needs root + frr + tmux (fails, never skips, when missing).
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLab, type Lab } from '../lab/lab.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { frrLabNode } from '../fakes/gns3/nodes.js';
import { BIN, cliEnv, runCli } from '../e2e/oneshot-cli.js';
import { startTerminal } from '../helpers/cli-tmux.js';
import { parseXml } from './xml.js';

let lab: Lab;
let gns3: FakeGns3;
let closedPort = 0;
const env = cliEnv({ GNS3_USER: 'admin', GNS3_PASSWORD: 'admin-pass' });
const file = (name: string) => join(env.home, name);
const STUDENT_ROUTER: Record<string, string> = { 'student-01': 'R1', 'student-02': 'R2', 'student-03': 'R3' };

const CHECKS = `project: teacher
checks:
  - node: {name: R1, status: started}
    name: R1 started
  - interface: {device: R1, name: eth0, state: up}
    name: R1 eth0 up
  - route: {device: R1, prefix: 10.99.0.0/16, protocol: static}
    name: R1 static 10.99/16
`;

const cli = (args: string[], timeoutMs = 60_000) => runCli([...args, '--server', gns3.url], env.env, { timeoutMs });
const addRoute = (r: string) => lab.vtysh(r, 'configure terminal', 'ip route 10.99.0.0/16 Null0', 'end');

/** A loopback port nothing listens on (bound, then closed). */
async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((res) => srv.listen(0, '127.0.0.1', res));
  const port = (srv.address() as { port: number }).port;
  await new Promise((res) => srv.close(res));
  return port;
}

beforeAll(async () => {
  lab = await startLab({
    routers: ['R1', 'R2', 'R3'],
    links: [
      ['R1', 'R2'],
      ['R2', 'R3'],
    ],
  });
  gns3 = await startFakeGns3({ api: 'v3', users: { admin: 'admin-pass' } });
  gns3.addProject({ name: 'teacher' });
  gns3.addNode(frrLabNode(lab.device('R1'), { project: 'teacher' }));
  for (const [student, router] of Object.entries(STUDENT_ROUTER)) {
    gns3.addProject({ name: student });
    gns3.addNode(frrLabNode({ ...lab.device(router), name: 'R1' }, { project: student }));
  }
  closedPort = await freePort();
  gns3.addProject({ name: 'student-04' });
  gns3.addNode(frrLabNode({ name: 'R1', consoleHost: '127.0.0.1', consolePort: closedPort }, { project: 'student-04' }));
  addRoute('R1');
  addRoute('R2');
  writeFileSync(file('lab.yaml'), CHECKS);
}, 120_000);

afterAll(async () => {
  await gns3?.close();
  await lab?.stop();
  env.cleanup();
});

describe('check --projects: the whole class in one command', () => {
  it('one row per matching project (score, counts, time, first failing check) and the totals; exit 7', async () => {
    const r = await cli(['check', file('lab.yaml'), '--projects', 'student-*', '--jobs', '2']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(7);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^project\s+score\s+pass\s+fail\s+err\s+time\s+first failing check$/);
    expect(lines.slice(1, 5).map((l) => l.split(/\s{2,}/).slice(0, 5))).toEqual([
      ['student-01', '3/3', '3', '0', '0'],
      ['student-02', '3/3', '3', '0', '0'],
      ['student-03', '2/3', '2', '1', '0'],
      ['student-04', '1/3', '1', '0', '2'],
    ]);
    expect(lines[1]).toMatch(/\d+\.\ds\s+—$/);
    expect(lines[3]).toMatch(/\s+R1 static 10\.99\/16: no route to 10\.99\.0\.0\/16/);
    expect(lines[4]).toMatch(new RegExp(`\\s+R1 eth0 up: cannot reach R1 \\(127\\.0\\.0\\.1:${closedPort}\\)`));
    expect(lines[5]).toMatch(/^4 projects: 2 passing, 2 not · 9 passed, 1 failed, 2 errors · score 9\/12 · \d+\.\ds$/);
    expect(r.stdout).not.toContain('teacher');
  }, 90_000);

  it('--json: one report per project and the totals; a class whose every check passes is exit 0', async () => {
    const j = await cli(['check', file('lab.yaml'), '--projects', 'student-0[12]', '--json']);
    expect(j.stderr).toBe('');
    expect(j.code).toBe(0);
    const doc = JSON.parse(j.stdout) as { projects: Record<string, unknown>[]; totals: Record<string, unknown> };
    expect(Object.keys(doc).sort()).toEqual(['projects', 'totals']);
    expect(doc.projects.map((p) => [p.project, p.passed, p.failed, p.errors, p.score, p.max_score])).toEqual([
      ['student-01', 3, 0, 0, 3, 3],
      ['student-02', 3, 0, 0, 3, 3],
    ]);
    expect(Object.keys(doc.projects[0]!).sort()).toEqual([
      'checks',
      'duration_ms',
      'errors',
      'failed',
      'max_score',
      'passed',
      'project',
      'score',
    ]);
    expect(doc.totals).toMatchObject({
      projects: 2,
      passing_projects: 2,
      failing_projects: 0,
      passed: 6,
      failed: 0,
      errors: 0,
      score: 6,
      max_score: 6,
    });
  }, 90_000);

  it('--junit: one testsuite per project with its failures and errors', async () => {
    const r = await cli(['check', file('lab.yaml'), '--projects', 'student-*', '--junit', file('class.xml')]);
    expect(r.code).toBe(7);
    const doc = parseXml(readFileSync(file('class.xml'), 'utf8'));
    expect(doc.attrs).toMatchObject({ tests: '12', failures: '1', errors: '2' });
    expect(doc.children.map((s) => [s.attrs.name, s.attrs.tests, s.attrs.failures, s.attrs.errors])).toEqual([
      ['student-01', '3', '0', '0'],
      ['student-02', '3', '0', '0'],
      ['student-03', '3', '1', '0'],
      ['student-04', '3', '0', '2'],
    ]);
    const failure = doc.children[2]!.children.filter((c) => c.name === 'testcase')[2]!.children.find((c) => c.name === 'failure');
    expect(failure?.attrs.message).toMatch(/^no route to 10\.99\.0\.0\/16/);
  }, 90_000);

  it('bad class flags: one line, exit 2, nothing graded', async () => {
    const both = await cli(['check', file('lab.yaml'), '--projects', 'student-*', '--project', 'teacher']);
    expect([both.code, both.stdout, both.stderr]).toEqual([2, '', 'error: --project and --projects: give one of them\n']);
    const jobs = await cli(['check', file('lab.yaml'), '--projects', 'student-*', '--jobs', '0']);
    expect([jobs.code, jobs.stderr]).toEqual([2, 'error: --jobs: must be an integer 1..32 (got "0")\n']);
    const none = await cli(['check', file('lab.yaml'), '--projects', 'nobody-*']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^error: --projects: no project matches "nobody-\*" on the controller \(projects: .*student-01.*\)\n$/);
  }, 60_000);

  it('--watch without a terminal prints the rows once, then only the rows that change, until the class passes', async () => {
    lab.vtysh('R3', 'configure terminal', 'no ip route 10.99.0.0/16 Null0', 'end');
    const child = spawn(
      process.execPath,
      [BIN, 'check', file('lab.yaml'), '--projects', 'student-0[123]', '--watch', '1', '--server', gns3.url],
      { env: env.env, cwd: env.home, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    let fixed = false;
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      // the student repairs the lab once the watch has seen it broken twice
      if (!fixed && /no change: 2\/3 projects passing/.test(stdout)) {
        fixed = true;
        addRoute('R3');
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines.slice(0, 4)).toEqual([
      'student-01  ✓ ✓ ✓      3/3',
      'student-02  ✓ ✓ ✓      3/3',
      expect.stringMatching(/^student-03 {2}✓ ✓ ✗ {6}2\/3 {2}R1 static 10\.99\/16: no route to 10\.99\.0\.0\/16/),
      expect.stringMatching(/^3 projects: 2 passing, 1 not · 8 passed, 1 failed, 0 errors · score 8\/9 · /),
    ]);
    const later = lines.slice(4);
    expect(later.slice(0, -2).every((l) => /^\d\d:\d\d:\d\d no change: 2\/3 projects passing$/.test(l))).toBe(true);
    // only the row that changed, never the rows that did not
    expect(later.at(-2)).toMatch(/^\d\d:\d\d:\d\d student-03 {2}✓ ✓ ✓ {6}3\/3$/);
    expect(later.at(-1)).toMatch(
      /^every project passes every check · 3 projects: 3 passing, 0 not · 9 passed, 0 failed, 0 errors · score 9\/9 · /,
    );
  }, 90_000);

  it('--watch in a terminal: the class grid redrawn in place; Ctrl-C leaves with 130', async () => {
    const { NO_COLOR: _off, ...colour } = env.env;
    const term = startTerminal(
      [process.execPath, BIN, 'check', file('lab.yaml'), '--projects', 'student-*', '--watch', '1', '--server', gns3.url],
      {
        ...(colour as Record<string, string>),
        TERM: 'xterm-256color',
      },
    );
    try {
      const first = await term.waitFor(/student-04.*\n.*4 projects/, 60_000);
      const stampOf = (s: string) => /class grid · 4 projects × 3 checks · (\d\d:\d\d:\d\d)/.exec(s)?.[1];
      const t0 = stampOf(first);
      expect(t0).toBeDefined();
      // a later frame replaces the first: one title, one row per student, whatever the number of runs
      const again = await term.waitFor(new RegExp(`class grid · 4 projects × 3 checks · (?!${t0})`), 30_000);
      expect(again.match(/class grid/g)).toHaveLength(1);
      const rows = again.split('\n').filter((l) => l.startsWith('student-'));
      expect(rows.map((l) => l.trimEnd())).toEqual([
        'student-01  ✓ ✓ ✓      3/3',
        'student-02  ✓ ✓ ✓      3/3',
        'student-03  ✓ ✓ ✓      3/3',
        expect.stringMatching(/^student-04 {2}✓ ! ! {6}1\/3 {2}R1 eth0 up: cannot reach R1 \(127\.0\.0\.1:\d+\)/),
      ]);
      expect(again).toMatch(/^project {5}1 2 3 {4}score$/m);
      expect(again).toMatch(/^1 R1 started$/m);
      expect(again).toMatch(/^3 R1 static 10\.99\/16$/m);
      term.send('C-c');
      await term.waitFor(/EXIT=130/, 15_000);
    } finally {
      term.close();
    }
  }, 120_000);
});

describe('checkpoint save|restore --projects: a class checkpoint, one approval for the whole class', () => {
  const CLASS = 'student-0[123]';
  const extra = (r: string) => lab.vtysh(r, 'show running-config').includes('ip route 10.98.0.0/16 Null0');

  it('saves every project; a restore without --yes lists every project and device and sends nothing (6); --yes restores all', async () => {
    const save = await cli(['checkpoint', 'save', 'stage1', '--projects', CLASS, '--jobs', '2']);
    expect(save.stderr).toBe('');
    expect(save.code).toBe(0);
    for (const s of Object.keys(STUDENT_ROUTER))
      expect(save.stdout).toMatch(new RegExp(`^checkpoint stage1 of project ${s}: 1 of 1 node\\(s\\) saved`, 'm'));
    expect(save.stdout).toMatch(/^3 projects: 3 saved, 0 not$/m);

    // two students change their router after the checkpoint
    for (const r of ['R1', 'R3']) lab.vtysh(r, 'configure terminal', 'ip route 10.98.0.0/16 Null0', 'end');
    const plan = await cli(['checkpoint', 'restore', 'stage1', '--projects', CLASS]);
    expect(plan.code).toBe(6);
    expect(plan.stderr).toBe(
      'error: the class restore needs approval: rerun with --yes to apply this plan to every project (nothing was sent)\n',
    );
    for (const s of Object.keys(STUDENT_ROUTER)) expect(plan.stdout).toContain(`project ${s}: restore of checkpoint stage1`);
    expect(plan.stdout).toMatch(/no ip route 10\.98\.0\.0\/16 Null0/);
    expect(plan.stdout).toMatch(/^3 projects, 2 devices in the plan$/m);
    expect([extra('R1'), extra('R3')]).toEqual([true, true]);

    const done = await cli(['checkpoint', 'restore', 'stage1', '--projects', CLASS, '--yes', '--json']);
    expect(done.code, done.stderr).toBe(0);
    const doc = JSON.parse(done.stdout) as { projects: { project: string; devices: { name: string; status: string }[] }[] };
    expect(doc.projects.map((p) => [p.project, p.devices.map((d) => d.status)])).toEqual([
      ['student-01', ['restored']],
      ['student-02', ['unchanged']],
      ['student-03', ['restored']],
    ]);
    expect([extra('R1'), extra('R3')]).toEqual([false, false]);

    const both = await cli(['checkpoint', 'save', 'x', '--projects', CLASS, '--project', 'teacher']);
    expect([both.code, both.stderr]).toEqual([2, 'error: --project and --projects: give one of them\n']);
  }, 180_000);
});

/**
 * `check FILE --projects GLOB --junit FILE` with a staged check file, through the built CLI
 * against a fake GNS3 controller holding a class (topology checks only: nodes and links, read
 * from the controller): one testsuite per project and stage, named "project: stage" as a single
 * project's are, and --json keeping each project's stages; the controller's project list read once
 * for the class. Run `npm run build` first.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../e2e/oneshot-cli.js';
import { cliScope } from '../helpers/cli-scope.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { parseXml } from './xml.js';
import { stagedCheckFile } from './staged-file.js';

const scope = cliScope();
let gns3: FakeGns3;

const STAGED = stagedCheckFile('teacher');

/** student-01 has it all; student-02's R2 is stopped and its link missing; the teacher's project is not graded */
beforeAll(async () => {
  gns3 = await startFakeGns3({ api: 'v2' });
  const node = (name: string, status: 'started' | 'stopped', project: string) =>
    gns3.addNode({ name, node_type: 'qemu', status, console: null, console_type: 'none', ports: 2, project });
  for (const p of ['student-01', 'student-02', 'teacher']) gns3.addProject({ name: p });
  node('R1', 'started', 'student-01');
  node('R2', 'started', 'student-01');
  gns3.addLink({ a: 'R1:e0', b: 'R2:e0', project: 'student-01' });
  node('R1', 'started', 'student-02');
  node('R2', 'stopped', 'student-02');
  node('R1', 'started', 'teacher');
});
afterAll(async () => {
  await gns3?.close();
});

function setup() {
  const e = scope.fresh();
  const path = (name: string) => join(e.home, name);
  writeFileSync(path('lab.yaml'), STAGED);
  const cli = (args: string[]) => runCli([...args, '-s', gns3.url], e.env, { timeoutMs: 60_000 });
  return { path, cli };
}

describe('check --projects with a staged file', () => {
  it('--junit: one testsuite per project and stage, with its failures', async () => {
    const { path, cli } = setup();
    const before = gns3.requests.length;
    const r = await cli(['check', path('lab.yaml'), '--projects', 'student-*', '--junit', path('class.xml')]);
    expect(r.code, r.stderr).toBe(7);
    // the controller's project list is read once for the class, not again per project
    const lists = gns3.requests.slice(before).filter((q) => q.method === 'GET' && /\/projects\/?$/.test(q.path));
    expect(lists).toHaveLength(1);
    const doc = parseXml(readFileSync(path('class.xml'), 'utf8'));
    expect(doc.attrs).toMatchObject({ tests: '6', failures: '2', errors: '0' });
    expect(doc.children.map((s) => [s.attrs.name, s.attrs.tests, s.attrs.failures, s.attrs.errors])).toEqual([
      ['student-01: 1 nodes', '2', '0', '0'],
      ['student-01: 2 links', '1', '0', '0'],
      ['student-02: 1 nodes', '2', '1', '0'],
      ['student-02: 2 links', '1', '1', '0'],
    ]);
    const score = (i: number) => doc.children[i]!.children[0]!.children.map((p) => [p.attrs.name, p.attrs.value]);
    expect(score(2)).toEqual([
      ['score', '1'],
      ['max_score', '3'],
    ]);
    const failed = doc.children[3]!.children.filter((c) => c.name === 'testcase');
    expect(failed.map((c) => [c.attrs.name, c.children.some((x) => x.name === 'failure')])).toEqual([['link R1:e0 - R2:e0 clean', true]]);
  });

  it('--json: each project keeps its stages', async () => {
    const { path, cli } = setup();
    const r = await cli(['check', path('lab.yaml'), '--projects', 'student-*', '--json']);
    expect(r.code, r.stderr).toBe(7);
    const doc = JSON.parse(r.stdout) as { projects: { project: string; stages: unknown[] }[] };
    expect(doc.projects.map((p) => [p.project, p.stages])).toEqual([
      [
        'student-01',
        [
          { name: '1 nodes', passed: 2, failed: 0, errors: 0, score: 3, max_score: 3 },
          { name: '2 links', passed: 1, failed: 0, errors: 0, score: 1, max_score: 1 },
        ],
      ],
      [
        'student-02',
        [
          { name: '1 nodes', passed: 1, failed: 1, errors: 0, score: 1, max_score: 3 },
          { name: '2 links', passed: 0, failed: 1, errors: 0, score: 0, max_score: 1 },
        ],
      ],
    ]);
  });
});

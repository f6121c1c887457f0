/**
 * Staged check files through the built CLI against a fake GNS3 controller (topology checks
 * only: nodes and links, read from the controller): the per-stage table, `--stage`, the
 * `--json` shape, a testsuite per stage in `--junit`, bad stage input as one line and exit 2
 * before the controller is asked, and `--init --stage` starting and appending to files.
 * Run `npm run build` first.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../e2e/oneshot-cli.js';
import { cliScope } from '../helpers/cli-scope.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { parseCheckText } from '../../src/check/load.js';
import { parseXml } from './xml.js';
import { stagedCheckFile } from './staged-file.js';

const scope = cliScope();
const PROJECT = 'stages-lab';
let gns3: FakeGns3;

const STAGED = stagedCheckFile(PROJECT);

beforeAll(async () => {
  gns3 = await startFakeGns3({ api: 'v2' });
  gns3.addProject({ name: PROJECT });
  gns3.addNode({ name: 'R1', node_type: 'qemu', status: 'started', console: null, console_type: 'none', ports: 2, project: PROJECT });
  gns3.addNode({ name: 'R2', node_type: 'qemu', status: 'stopped', console: null, console_type: 'none', ports: 2, project: PROJECT });
  gns3.addLink({ a: 'R1:e0', b: 'R2:e0', project: PROJECT });
});
afterAll(async () => {
  await gns3?.close();
});

function setup(files: Record<string, string> = {}) {
  const e = scope.fresh();
  const path = (name: string) => join(e.home, name);
  for (const [name, text] of Object.entries(files)) writeFileSync(path(name), text);
  const cli = (args: string[]) => runCli([...args, '-s', gns3.url], e.env, { timeoutMs: 60_000 });
  return { path, cli };
}

/** One `error:` line and the exit code; the controller was not asked. */
async function refused(run: Promise<{ code: number | null; stderr: string; stdout: string }>, text: string): Promise<void> {
  const before = gns3.requests.length;
  const r = await run;
  expect(r.code, r.stderr).toBe(2);
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toContain(text);
  expect(r.stdout).toBe('');
  expect(gns3.requests.length, 'the controller was asked').toBe(before);
}

describe('check with a staged file', () => {
  it('runs every stage: a heading per stage with its counts, the totals, exit 7 when a stage fails', async () => {
    const { path, cli } = setup({ 'lab.yaml': STAGED });
    const r = await cli(['check', path('lab.yaml')]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(7);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('── 1 nodes · 1 passed, 1 failed, 0 errors · score 1/3');
    expect(lines[1]).toMatch(/^✓ node R1 started\s+R1: started$/);
    expect(lines[2]).toMatch(/^✗ node R2 started\s+R2: stopped$/);
    expect(lines[3]).toBe('── 2 links · 1 passed, 0 failed, 0 errors · score 1/1');
    expect(lines[4]).toMatch(/^✓ link R1:e0 - R2:e0 clean\s+R1:e0 <-> R2:e0 \(no filters\)$/);
    expect(lines[5]).toBe(`2 passed, 1 failed, 0 errors · score 2/4 · project ${PROJECT}`);
    expect(lines).toHaveLength(6);
  });

  it('--json reports per stage (name, passed, failed, errors, score, max_score) and each check’s stage, with the totals', async () => {
    const { path, cli } = setup({ 'lab.yaml': STAGED });
    const r = await cli(['check', path('lab.yaml'), '--json']);
    expect(r.code, r.stderr).toBe(7);
    const report = JSON.parse(r.stdout) as Record<string, unknown> & { checks: Record<string, unknown>[] };
    expect(Object.keys(report).sort()).toEqual(['checks', 'errors', 'failed', 'max_score', 'passed', 'project', 'score', 'stages']);
    expect(report).toMatchObject({ project: PROJECT, passed: 2, failed: 1, errors: 0, score: 2, max_score: 4 });
    expect(report.stages).toEqual([
      { name: '1 nodes', passed: 1, failed: 1, errors: 0, score: 1, max_score: 3 },
      { name: '2 links', passed: 1, failed: 0, errors: 0, score: 1, max_score: 1 },
    ]);
    expect(report.checks.map((c) => [c.stage, c.status])).toEqual([
      ['1 nodes', 'pass'],
      ['1 nodes', 'fail'],
      ['2 links', 'pass'],
    ]);
  });

  it('--stage runs one stage (its name in any case): only its checks, its exit code', async () => {
    const { path, cli } = setup({ 'lab.yaml': STAGED });
    const r = await cli(['check', path('lab.yaml'), '--stage', '2 LINKS', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { stages: unknown[]; checks: { name: string }[]; max_score: number };
    expect(report.stages).toEqual([{ name: '2 links', passed: 1, failed: 0, errors: 0, score: 1, max_score: 1 }]);
    expect(report.checks.map((c) => c.name)).toEqual(['link R1:e0 - R2:e0 clean']);
    expect(report.max_score).toBe(1);
    const t = await cli(['check', path('lab.yaml'), '--stage', '1 nodes']);
    expect(t.code).toBe(7);
    expect(t.stdout).toContain('── 1 nodes · 1 passed, 1 failed, 0 errors · score 1/3\n');
    expect(t.stdout).not.toContain('2 links');
  });

  it('--junit writes one testsuite per stage', async () => {
    const { path, cli } = setup({ 'lab.yaml': STAGED });
    const r = await cli(['check', path('lab.yaml'), '--junit', path('report.xml')]);
    expect(r.code, r.stderr).toBe(7);
    const doc = parseXml(readFileSync(path('report.xml'), 'utf8'));
    expect(doc.children.map((s) => [s.attrs.name, s.attrs.tests, s.attrs.failures])).toEqual([
      [`${PROJECT}: 1 nodes`, '2', '1'],
      [`${PROJECT}: 2 links`, '1', '0'],
    ]);
  });

  it('bad stage input is one line and exit 2 before the controller is asked', async () => {
    const both = `${STAGED}checks:\n  - node: {name: R1}\n`;
    const { path, cli } = setup({ 'lab.yaml': STAGED, 'both.yaml': both, 'plain.yaml': 'checks:\n  - node: {name: R1}\n' });
    await refused(cli(['check', path('lab.yaml'), '--stage', '3 bgp']), '--stage: no stage named "3 bgp" in');
    await refused(cli(['check', path('lab.yaml'), '--stage', '3 bgp']), '(stages: "1 nodes", "2 links")');
    await refused(cli(['check', path('plain.yaml'), '--stage', 'x']), 'has no stages');
    await refused(cli(['check', path('both.yaml')]), 'stages: a file has "checks:" or "stages:", not both');
  });
});

describe('check --init --stage', () => {
  it('starts a staged file, appends a second stage, refuses a stage name already there', async () => {
    const { path, cli } = setup();
    const first = await cli(['check', '--init', path('new.yaml'), '--stage', '1 base', '--project', PROJECT]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe(`wrote 3 checks for project ${PROJECT} to ${path('new.yaml')} as stage "1 base"\n`);
    // the file names its project: the next stage needs no --project
    const second = await cli(['check', '--init', path('new.yaml'), '--stage', '2 later']);
    expect(second.code, second.stderr).toBe(0);
    const text = readFileSync(path('new.yaml'), 'utf8');
    const file = parseCheckText(text, 'new.yaml');
    expect(file.project).toBe(PROJECT);
    expect(file.stages!.map((s) => [s.name, s.checks.length])).toEqual([
      ['1 base', 3],
      ['2 later', 3],
    ]);
    await refused(cli(['check', '--init', path('new.yaml'), '--stage', '1 BASE']), 'already has a stage "1 BASE"');
    expect(readFileSync(path('new.yaml'), 'utf8')).toBe(text);
    const run = await cli(['check', path('new.yaml'), '--stage', '2 later']);
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toContain('── 2 later · 3 passed, 0 failed, 0 errors · score 3/3\n');
  });

  it('converts a plain file: its checks become a first stage named after the file; without --stage it is refused', async () => {
    const plain = `# edited by hand\nproject: ${PROJECT}\nchecks:\n  - node: {name: R1}\n`;
    const { path, cli } = setup({ 'ospf-lab.yaml': plain });
    await refused(cli(['check', '--init', path('ospf-lab.yaml')]), 'exists; move it away, name a new file or append a --stage');
    const r = await cli(['check', '--init', path('ospf-lab.yaml'), '--stage', '2 routing']);
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(path('ospf-lab.yaml'), 'utf8');
    expect(text).toContain('# edited by hand');
    expect(parseCheckText(text, 'f').stages!.map((s) => [s.name, s.checks.length])).toEqual([
      ['ospf-lab', 1],
      ['2 routing', 3],
    ]);
    await refused(cli(['check', '--init', path('ospf-lab.yaml'), '--stage', 'OSPF-lab']), 'already has a stage "OSPF-lab"');
  });
});

/**
 * `checkpoint save|restore NAME --projects GLOB` on the real lab: a fake v3 controller holding a
 * class (student-01 and student-02, each a router "R1" that is one of the lab's real FRR routers,
 * and a teacher project that is not matched), the built CLI run as a process. The class is saved,
 * both routers changed out of band; `restore --dry-run` prints every project's plan and exits 0,
 * `restore` without `--yes` prints it and exits 6 — both send nothing (read back from the
 * routers, no restore recorded) — and `--yes` restores every project.
 * Needs root + frr (fails, never skips, when missing).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLab, type Lab } from '../lab/lab.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { frrLabNode } from '../fakes/gns3/nodes.js';
import { cliEnv, runCli } from '../e2e/oneshot-cli.js';
import { SessionStore } from '../../src/sessions/store.js';

/** each student's R1 is this lab router */
const STUDENT_ROUTER: Record<string, string> = { 'student-01': 'r1', 'student-02': 'r2' };
let lab: Lab;
let gns3: FakeGns3;
const env = cliEnv({ GNS3_USER: 'admin', GNS3_PASSWORD: 'admin-pass' });
env.env.GNS3_COPILOT_DATA_DIR = `${env.home}/data`;
// a loaded machine can take more than the default 5 s to bring a console prompt back
env.env.GNS3_COPILOT_CONNECT_TIMEOUT_MS = '15000';
const atStage1 = new Map<string, string>();

const cli = (args: string[]) => runCli([...args, '--server', gns3.url], env.env, { timeoutMs: 150_000 });
const running = (r: string) => lab.vtysh(r, 'show running-config').replace(/\s+$/, '');
const describeLo = (r: string, text: string) => lab.vtysh(r, 'configure terminal', 'interface lo', `description ${text}`);

async function restoresRecorded(): Promise<number> {
  const store = await SessionStore.open(`${env.home}/data`);
  try {
    return store.db.prepare('SELECT count(*) FROM lab_checkpoint_restores').pluck().get() as number;
  } finally {
    store.close();
  }
}

beforeAll(async () => {
  lab = await startLab({ routers: ['r1', 'r2'], links: [['r1', 'r2']] });
  gns3 = await startFakeGns3({ api: 'v3', users: { admin: 'admin-pass' } });
  for (const [student, router] of Object.entries(STUDENT_ROUTER)) {
    gns3.addProject({ name: student });
    gns3.addNode(frrLabNode({ ...lab.device(router), name: 'R1' }, { project: student, ports: 2 }));
  }
  gns3.addProject({ name: 'teacher' });
  gns3.addNode(frrLabNode({ ...lab.device('r1'), name: 'R1' }, { project: 'teacher', ports: 2 }));
}, 180_000);

afterAll(async () => {
  await gns3?.close();
  await lab?.stop();
  env.cleanup();
});

describe('checkpoint restore --projects: one plan for the class, nothing sent until --yes', () => {
  it('save stage1 --projects saves each matching project (the teacher is not matched), listing the projects once', async () => {
    for (const r of Object.values(STUDENT_ROUTER)) atStage1.set(r, running(r));
    const before = gns3.requests.length;
    const r = await cli(['checkpoint', 'save', 'stage1', '--projects', 'student-*', '--json']);
    expect(r.code, r.stderr).toBe(0);
    // the controller's project list is read once for the class, not again per project
    expect(gns3.requests.slice(before).filter((q) => q.method === 'GET' && /\/projects\/?$/.test(q.path))).toHaveLength(1);
    const j = JSON.parse(r.stdout) as { projects: { project: string }[]; totals: unknown };
    expect(j.projects.map((p) => p.project)).toEqual(['student-01', 'student-02']);
    expect(j.totals).toEqual({ projects: 2, saved: 2, not_saved: 0 });
    for (const r of Object.values(STUDENT_ROUTER)) describeLo(r, `changed on ${r}`);
  }, 180_000);

  it('--dry-run prints every project and device with its commands, exit 0; nothing is sent', async () => {
    const r = await cli(['checkpoint', 'restore', 'stage1', '--projects', 'student-*', '--dry-run']);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^project student-01: restore of checkpoint stage1 /m);
    expect(r.stdout).toMatch(/^project student-02: restore of checkpoint stage1 /m);
    expect(r.stdout).not.toContain('teacher');
    expect(r.stdout.match(/^commands:$/gm)).toHaveLength(2);
    expect(r.stdout).toMatch(/no description/);
    expect(r.stdout).toMatch(/^2 projects, 2 devices in the plan$/m);
    for (const x of Object.values(STUDENT_ROUTER)) expect(running(x)).toMatch(new RegExp(`description changed on ${x}`));
    expect(await restoresRecorded()).toBe(0);
  }, 180_000);

  it('without --yes: the same plan, exit 6 asking for --yes; nothing is sent', async () => {
    const r = await cli(['checkpoint', 'restore', 'stage1', '--projects', 'student-*']);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(6);
    expect(r.stderr).toBe(
      'error: the class restore needs approval: rerun with --yes to apply this plan to every project (nothing was sent)\n',
    );
    expect(r.stdout).toMatch(/^project student-01: restore of checkpoint stage1 /m);
    expect(r.stdout).toMatch(/^project student-02: restore of checkpoint stage1 /m);
    expect(r.stdout).toMatch(/^2 projects, 2 devices in the plan$/m);
    for (const x of Object.values(STUDENT_ROUTER)) expect(running(x)).toMatch(new RegExp(`description changed on ${x}`));
    expect(await restoresRecorded()).toBe(0);
  }, 180_000);

  it('--yes restores every project: each router is back at stage1', async () => {
    const r = await cli(['checkpoint', 'restore', 'stage1', '--projects', 'student-*', '--yes', '--json']);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    const j = JSON.parse(r.stdout) as { projects: { project: string; devices: { name: string; status: string }[] }[] };
    expect(j.projects.map((p) => [p.project, p.devices.map((d) => [d.name, d.status])])).toEqual([
      ['student-01', [['R1', 'restored']]],
      ['student-02', [['R1', 'restored']]],
    ]);
    for (const x of Object.values(STUDENT_ROUTER)) expect(running(x)).toBe(atStage1.get(x));
  }, 180_000);
});

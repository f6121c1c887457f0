/**
 * `inject --scenario|--random` end to end: the built CLI, no LLM, the fake GNS3 controller
 * whose nodes are the real FRR OSPF triangle (and three student projects whose nodes are
 * the same routers). A named scenario is planned from the live lab, refused without --yes
 * (exit 6, nothing sent), applied with it through the gate into the ledger under the
 * project's CLI session, found by `faults check` (exit 7) and undone by `faults restore`
 * or `rewind`; a parameter nothing resolves is one line, exit 2, nothing sent; one seed
 * draws the same faults on two fresh ledgers and the next draw repeats none of them; a
 * class is planned and injected in one command. One lab for the file; the tests run in order.
 * Needs root + frr (fails, never skips, when missing).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lab } from '../lab/lab.js';
import type { FakeGns3 } from '../fakes/gns3/server.js';
import { frrLabNode } from '../fakes/gns3/nodes.js';
import { BIN, cliEnv, runCli, type CliEnv } from '../e2e/oneshot-cli.js';
import { spawn } from 'node:child_process';
import { ROUTERS, fullNeighbours, ospfConfig, startOspfLab, waitForFullMesh, type OspfLab } from '../e2e/ospf-lab.js';
import { cliSessionId } from '../../src/scenarios/cli-session.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { settingsSchema } from '../../src/config/schema.js';
import { createGns3Client } from '../../src/gns3/client.js';
import { nullLogger } from '../../src/log.js';
import { SessionStore } from '../../src/sessions/store.js';
import { FaultStore } from '../../src/faults/store.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { allTools } from '../../src/tools/index.js';
import { loadSkills } from '../../src/skills/loader.js';
import { openInjectLab } from '../../src/scenarios/lab.js';
import { applyScenario, drawScenarios } from '../../src/scenarios/api.js';
import { YES } from '../../src/scenarios/run.js';

const PROJECT = 'inject-lab';
const STUDENTS = ['student-01', 'student-02', 'student-03'];
let ospf: OspfLab | undefined;
let lab: Lab;
let gns3: FakeGns3;
// what is tested is not the verification's settle: OSPF's flooding wait (verify_quiet, see changeset-checks-lab) is off
const envA = cliEnv({ GNS3_USER: 'admin', GNS3_PASSWORD: 'admin-pass', GNS3_COPILOT_VERIFY_QUIET: '0' });
const envB = cliEnv({ GNS3_USER: 'admin', GNS3_PASSWORD: 'admin-pass', GNS3_COPILOT_VERIFY_QUIET: '0' });

/** How often the controller's project list was read so far. */
const listReads = () => gns3.requests.filter((q) => q.method === 'GET' && /^\/v[23]\/projects$/.test(q.path)).length;
const run = (env: CliEnv, args: string[], timeoutMs = 120_000) => runCli([...args, '--server', gns3.url], env.env, { timeoutMs });
const cli = (args: string[], env = envA) => run(env, [...args, '--project', PROJECT]);
const running = (router: string) => lab.vtysh(router, 'show running-config');

interface Row {
  id?: number;
  status: string;
  scenario: string;
  target: string;
  parameters: Record<string, string>;
  applied: unknown;
  restore?: { tool: string; args: Record<string, unknown> };
  repair_check?: Record<string, unknown>;
}
interface Report {
  project: string;
  status: string;
  seed?: string;
  faults: Row[];
  error?: string;
}
const picks = (r: Report) => r.faults.map((f) => `${f.scenario}@${f.target}`);

beforeAll(async () => {
  ospf = await startOspfLab(PROJECT);
  ({ lab, gns3 } = ospf);
  for (const r of ROUTERS) lab.vtysh(r, 'configure terminal', ...ospfConfig(lab, r), 'end');
  gns3.addLink({ a: 'R1:e3', b: 'R2:e3', project: PROJECT });
  // a class whose projects' nodes are the same routers (each project its own controller link)
  for (const s of STUDENTS) {
    gns3.addProject({ name: s });
    for (const r of ROUTERS) gns3.addNode(frrLabNode(lab.device(r), { ports: 4, project: s }));
    gns3.addLink({ a: 'R1:e0', b: 'R2:e0', project: s });
  }
  await waitForFullMesh(lab, 30_000);
}, 120_000);

afterAll(async () => {
  await ospf?.stop();
  envA.cleanup();
  envB.cleanup();
});

describe('inject --scenario on the real FRR lab', () => {
  it('without --yes: the plan (scenario, device, lines, restore), exit 6, nothing sent or recorded', async () => {
    const before = running('R1');
    const r = await cli(['inject', '--scenario', 'ospf_hello_interval_mismatch', '--device', 'R1']);
    expect(r.code, r.stderr).toBe(6);
    expect(r.stdout).toContain(`${PROJECT}: planned`);
    expect(r.stdout).toContain('· ospf_hello_interval_mismatch (ospf, medium) on R1 [frr]  interface=eth0');
    expect(r.stdout).toContain('      + interface eth0\n      + ip ospf hello-interval 25\n');
    // the scenario's restore, then the interface's own timer the fault overrides (the lab runs fast hellos)
    expect(r.stdout).toContain(
      '      restore: interface eth0 / no ip ospf hello-interval / interface eth0 / ip ospf hello-interval 1 / exit\n',
    );
    expect(r.stderr).toBe('error: the faults need approval: rerun with --yes to apply this plan (nothing was sent)\n');
    expect(running('R1')).toBe(before);
    const list = await cli(['faults', 'list', '--json']);
    expect(JSON.parse(list.stdout).faults).toEqual([]);
    const sessions = JSON.parse((await runCli(['sessions', 'list', '--json'], envA.env)).stdout) as { sessions: unknown[] };
    expect(sessions.sessions).toEqual([]);
  }, 120_000);

  it('a parameter nothing on the device gives: one line naming it, exit 2, nothing sent', async () => {
    const before = running('R1');
    const r = await cli(['inject', '--scenario', 'bgp_neighbor_shutdown', '--device', 'R1', '--yes']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `error: bgp_neighbor_shutdown on R1: no value for local_as (this router's AS): R1's running configuration has no "router bgp {{local_as}}"; set it with --set local_as=VALUE\n`,
    );
    const j = await cli(['inject', '--scenario', 'bgp_neighbor_shutdown', '--device', 'R1', '--yes', '--json']);
    expect(j.code).toBe(2);
    expect(JSON.parse(j.stdout)).toEqual({
      error: { type: 'usage', message: expect.stringMatching(/^bgp_neighbor_shutdown on R1: no value for local_as/) },
    });
    const typo = await cli(['inject', '--scenario', 'ospf_hello_interval_mismatch', '--device', 'R1', '--set', 'iface=eth1', '--yes']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe(
      'error: --set iface: ospf_hello_interval_mismatch has no parameter iface on frr (its parameters: interface)\n',
    );
    expect(running('R1')).toBe(before);
    expect(JSON.parse((await cli(['faults', 'list', '--json'])).stdout).faults).toEqual([]);
  }, 120_000);

  let faultId: number;
  it('with --yes: applied through the gate, in the ledger under the CLI session with its restore and repair check', async () => {
    const r = await cli(['inject', '--scenario', 'ospf_hello_interval_mismatch', '--device', 'R1', '--yes', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const rep = JSON.parse(r.stdout) as Report;
    expect(rep).toMatchObject({ project: PROJECT, status: 'injected' });
    expect(rep.faults).toHaveLength(1);
    faultId = rep.faults[0]!.id!;
    expect(rep.faults[0]).toMatchObject({
      status: 'injected',
      scenario: 'ospf_hello_interval_mismatch',
      target: 'R1',
      parameters: { interface: 'eth0' },
      applied: ['interface eth0', 'ip ospf hello-interval 25'],
    });
    expect(running('R1')).toContain('ip ospf hello-interval 25');

    const show = JSON.parse((await cli(['faults', 'show', String(faultId), '--json'])).stdout);
    const session = cliSessionId(gns3.url, ospf!.projectId);
    expect(show).toMatchObject({
      id: faultId,
      state: 'open',
      session_id: session,
      scenario: 'ospf_hello_interval_mismatch',
      category: 'ospf',
      difficulty: 'medium',
      restore: {
        tool: 'execute_multiple_device_config_commands',
        args: {
          device_configs: [
            {
              device_name: 'R1',
              config_commands: ['interface eth0', 'no ip ospf hello-interval', 'interface eth0', 'ip ospf hello-interval 1', 'exit'],
            },
          ],
        },
        own_lines: ['interface eth0', 'ip ospf hello-interval 1', 'exit'],
      },
      repair_check: { config: { device: 'R1', section: 'interface eth0', lacks: 'ip ospf hello-interval 25' } },
    });
    const sessions = JSON.parse((await runCli(['sessions', 'list', '--json'], envA.env)).stdout) as {
      sessions: { id: string; title: string; copilot_mode: string; project_name: string }[];
    };
    expect(sessions.sessions).toEqual([
      expect.objectContaining({
        id: session,
        title: 'CLI faults (inject --scenario)',
        copilot_mode: 'troubleshooting_injection',
        project_name: PROJECT,
      }),
    ]);

    const check = await cli(['faults', 'check']);
    expect(check.code).toBe(7);
    expect(check.stdout).toMatch(
      new RegExp(`^✗ #${faultId} R1 ospf_hello_interval_mismatch {2}still present \\(fail\\) {2}ip ospf hello-interval 25$`, 'm'),
    );

    const restore = await cli(['faults', 'restore', String(faultId), '--yes']);
    expect(restore.code, restore.stderr).toBe(0);
    expect(running('R1')).not.toContain('ip ospf hello-interval 25');
    // the restore puts back the interface's own timer, not the default: R2 (hello 1, dead 4) is Full with R1 again
    expect(running('R1')).toMatch(/^interface eth0\n( .*\n)* ip ospf hello-interval 1$/m);
    expect(running('R1')).toMatch(/^interface eth0\n( .*\n)* ip ospf dead-interval 4$/m);
    const after = JSON.parse((await cli(['faults', 'list', '--json'])).stdout);
    expect(after).toMatchObject({ open: 0, restored: 1 });
    await waitForFullMesh(lab, 30_000);
    expect(ROUTERS.map((x) => fullNeighbours(lab, x))).toEqual([2, 2, 2]);
  }, 180_000);

  it('a rewind of the CLI session undoes its faults and marks them restored, like an agent session', async () => {
    const before = running('R2');
    const r = await cli(['inject', '--scenario', 'interface_shutdown', '--device', 'R2', '--set', 'interface=eth1', '--yes', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const id = (JSON.parse(r.stdout) as Report).faults[0]!.id!;
    expect(running('R2')).toMatch(/^ shutdown$/m);
    const session = cliSessionId(gns3.url, ospf!.projectId);
    const rw = await cli(['rewind', session, '--yes', '--json']);
    expect(rw.code, rw.stderr).toBe(0);
    expect(JSON.parse(rw.stdout).faults_restored).toEqual([id]);
    expect(running('R2')).toBe(before);
    await waitForFullMesh(lab, 30_000);
  }, 180_000);
});

describe('the module API (what eval and the class commands call)', () => {
  it('applyScenario: a scenario on a device is its ledger fault; refused without an approver, a missing parameter named, nothing sent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-scenario-api-'));
    const settings = settingsSchema.parse({ server: gns3.url, data_dir: dir });
    const client = createGns3Client({
      settings,
      log: nullLogger,
      credentials: async () => ({ username: 'admin', password: 'admin-pass' }),
    });
    const sessions = await SessionStore.open(dir);
    const deps = {
      settings,
      client,
      sessions,
      registry: new ToolRegistry(allTools()),
      lib: loadSkills(settings),
      log: nullLogger,
      signal: new AbortController().signal,
    };
    const r3Link = lab.links.find((l) => l.a === 'R3' || l.b === 'R3')!;
    const iface = r3Link.a === 'R3' ? r3Link.aInterface : r3Link.bInterface;
    const injectLab = await openInjectLab(deps, PROJECT);
    try {
      const before = running('R3');
      await expect(applyScenario(injectLab, 'ospf_hello_interval_mismatch', { device: 'R3' })).rejects.toMatchObject({
        exitCode: 6,
        message: expect.stringMatching(/^ospf_hello_interval_mismatch: not applied: /),
      });
      await expect(applyScenario(injectLab, 'bgp_neighbor_shutdown', { device: 'R3' }, {}, { approver: YES })).rejects.toMatchObject({
        exitCode: 2,
        message: expect.stringMatching(/^bgp_neighbor_shutdown on R3: no value for local_as/),
      });
      expect(running('R3')).toBe(before);
      const faults = new FaultStore(sessions.db);
      expect(faults.list({ project: ospf!.projectId })).toEqual([]);

      const { fault } = await applyScenario(
        injectLab,
        'ospf_hello_interval_mismatch',
        { device: 'R3' },
        { interface: iface },
        { approver: YES },
      );
      expect(fault).toMatchObject({
        state: 'open',
        session_id: cliSessionId(gns3.url, ospf!.projectId),
        scenario: 'ospf_hello_interval_mismatch',
        target: 'R3',
        applied: [`interface ${iface}`, 'ip ospf hello-interval 25'],
      });
      expect(faults.get(fault.id)).toMatchObject({ id: fault.id, state: 'open' });
      expect(running('R3')).toMatch(new RegExp(`^interface ${iface}\\n( .*\\n)* ip ospf hello-interval 25$`, 'm'));
      // the same slot again: the ledger refuses a second open ospf fault on R3 (exit 8), nothing recorded
      await expect(applyScenario(injectLab, 'ospf_dead_interval_mismatch', { device: 'R3' }, {}, { approver: YES })).rejects.toMatchObject({
        exitCode: 8,
      });
      expect(faults.list({ project: ospf!.projectId })).toHaveLength(1);

      const drawn = await drawScenarios(injectLab, 2, { seed: '7', target: { device: 'R3' } });
      expect(drawn.placements.map((p) => p.scenario.id)).not.toContain('ospf_hello_interval_mismatch');
      expect(drawn.placements.every((p) => p.target.kind === 'device' && p.target.name === 'R3')).toBe(true);
      expect((await drawScenarios(injectLab, 2, { seed: '7', target: { device: 'R3' } })).placements).toEqual(drawn.placements);
    } finally {
      await injectLab.close();
      sessions.close();
      await client.close();
      rmSync(dir, { recursive: true, force: true });
      lab.vtysh('R3', 'configure terminal', `interface ${iface}`, 'no ip ospf hello-interval', 'exit', ...ospfConfig(lab, 'R3'), 'end');
    }
    await waitForFullMesh(lab, 30_000);
  }, 300_000);
});

describe('inject --random', () => {
  let first: Report;
  it('one seed draws the same three faults on two fresh ledgers', async () => {
    const envC = cliEnv({ GNS3_USER: 'admin', GNS3_PASSWORD: 'admin-pass', GNS3_COPILOT_VERIFY_QUIET: '0' });
    let rb: Report;
    try {
      const b = await cli(['inject', '--random', '3', '--seed', '1', '--json'], envB);
      const c = await cli(['inject', '--random', '3', '--seed', '1', '--json'], envC);
      expect(b.code, b.stderr).toBe(6);
      expect(c.code, c.stderr).toBe(6);
      rb = JSON.parse(b.stdout) as Report;
      expect(rb.seed).toBe('1');
      expect(picks(rb)).toHaveLength(3);
      expect(new Set(rb.faults.map((f) => f.scenario)).size).toBe(3);
      expect(picks(JSON.parse(c.stdout) as Report)).toEqual(picks(rb));
    } finally {
      envC.cleanup();
    }
    // applied: the plan it showed
    const applied = await cli(['inject', '--random', '3', '--seed', '1', '--json', '--yes'], envB);
    expect(applied.code, applied.stderr).toBe(0);
    first = JSON.parse(applied.stdout) as Report;
    expect(picks(first)).toEqual(picks(rb));
    expect(first.faults.every((f) => f.status === 'injected' && typeof f.id === 'number')).toBe(true);
  }, 300_000);

  it('the next draw picks none of the scenarios the ledger used; the seed is printed to replay a plan', async () => {
    const next = await cli(['inject', '--random', '3', '--json'], envB);
    expect(next.code).toBe(6);
    const r = JSON.parse(next.stdout) as Report;
    expect(r.seed).toMatch(/^\d+$/);
    const used = new Set(first.faults.map((f) => f.scenario));
    expect(r.faults.length).toBeGreaterThan(0);
    expect(r.faults.filter((f) => used.has(f.scenario))).toEqual([]);
    const text = await cli(['inject', '--random', '1', '--seed', '42'], envB);
    expect(text.stderr).toBe('error: the faults need approval: rerun with --yes to apply this plan (nothing was sent)\n');
    const unseeded = await cli(['inject', '--random', '1'], envB);
    expect(unseeded.stderr).toMatch(
      /^error: the faults need approval: rerun with --yes --seed \d+ to apply this plan \(nothing was sent\)\n$/,
    );
    // undo the draw for the class tests
    const session = cliSessionId(gns3.url, ospf!.projectId);
    const rw = await cli(['rewind', session, '--yes'], envB);
    expect(rw.code, rw.stderr).toBe(0);
    await waitForFullMesh(lab, 30_000);
  }, 300_000);
});

describe('inject --projects: a class in one command', () => {
  it('plans every matching project, one approval for the whole class; with --yes injects each in its own ledger session', async () => {
    const plan = await run(envA, ['inject', '--scenario', 'link_packet_loss_30', '--link', 'R1:e0-R2:e0', '--projects', 'student-*']);
    expect(plan.code, plan.stderr).toBe(6);
    for (const s of STUDENTS) expect(plan.stdout).toContain(`${s}: planned\n  · link_packet_loss_30 (link, medium) on R1:e0 <-> R2:e0`);
    expect(plan.stdout).toMatch(/^3 projects: 0 injected, 3 not$/m);
    for (const s of STUDENTS) expect([...gns3.project(s).links.values()][0]!.filters).toEqual({});

    const readsBefore = listReads();
    const done = await run(envA, [
      'inject',
      '--scenario',
      'link_packet_loss_30',
      '--link',
      'R1:e0-R2:e0',
      '--projects',
      'student-*',
      '--yes',
      '--json',
    ]);
    expect(done.code, done.stderr).toBe(0);
    const j = JSON.parse(done.stdout) as { projects: Report[] };
    expect(j.projects.map((p) => [p.project, p.status])).toEqual(STUDENTS.map((s) => [s, 'injected']));
    // the project list read once for the class, each project opened as listed
    expect(listReads() - readsBefore).toBe(1);
    for (const s of STUDENTS) expect([...gns3.project(s).links.values()][0]!.filters).toEqual({ packet_loss: [30] });
    const ledger = JSON.parse((await run(envA, ['faults', 'list', '--json'])).stdout) as {
      faults: { id: number; project: string; session_id: string; scenario: string }[];
    };
    const mine = ledger.faults.filter((f) => f.scenario === 'link_packet_loss_30');
    expect(mine.map((f) => f.project).sort()).toEqual(STUDENTS);
    expect(new Set(mine.map((f) => f.session_id)).size).toBe(3);

    // a class row that cannot be placed fails alone: student-01's link still carries its filter, student-02's was restored
    const s2 = ledger.faults.find((f) => f.scenario === 'link_packet_loss_30' && f.project === 'student-02')!;
    expect((await run(envA, ['faults', 'restore', String(s2.id), '--yes'])).code).toBe(0);
    const again = await run(envA, [
      'inject',
      '--scenario',
      'link_high_delay',
      '--link',
      'R1:e0-R2:e0',
      '--projects',
      'student-0[12]',
      '--yes',
      '--json',
    ]);
    expect(again.code).toBe(8);
    const rows = (JSON.parse(again.stdout) as { projects: Report[] }).projects;
    expect(rows.map((p) => [p.project, p.status])).toEqual([
      ['student-01', 'error'],
      ['student-02', 'injected'],
    ]);
    expect(rows[0]!.error).toBe('link_high_delay on R1:e0 <-> R2:e0: the link carries filters already (packet_loss 30)');
    expect(again.stderr).toBe('error: not every fault was applied: student-01 (error)\n');
    expect([...gns3.project('student-02').links.values()][0]!.filters).toEqual({ delay: [500, 50] });
  }, 300_000);

  it('faults check --projects: a row per project from its own ledger, exit 7 while one is open; a fix in one project is recorded', async () => {
    // after the test above: student-01 and -03 carry packet loss, student-02 a delay (its loss was restored)
    const r = await run(envA, ['faults', 'check', '--projects', 'student-*', '--jobs', '2']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(7);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^project\s+open\s+fixed\s+restored\s+score\s+still present$/);
    expect(lines.slice(1, 4).map((l) => l.split(/\s{2,}/).slice(0, 5))).toEqual([
      ['student-01', '1', '0', '0', '0/2'],
      ['student-02', '1', '0', '1', '0/4'],
      ['student-03', '1', '0', '0', '0/2'],
    ]);
    expect(lines[1]).toMatch(/#\d+ R1:e0 <-> R2:e0 link_packet_loss_30 still present \(fail\)/);
    expect(lines[2]).toMatch(/#\d+ R1:e0 <-> R2:e0 link_high_delay still present \(fail\)/);
    expect(lines[4]).toBe('3 projects: 3 with a fault open · 3 open, 0 fixed, 1 restored unfixed · score 0/8');

    // student-03 repairs the link (the filter removed on the controller): its fault is fixed, the class row says so
    [...gns3.project('student-03').links.values()][0]!.filters = {};
    const j = await run(envA, ['faults', 'check', '--projects', 'student-0[3]', '--json']);
    expect(j.code, j.stderr).toBe(0);
    const doc = JSON.parse(j.stdout) as {
      projects: { project: string; open: number; fixed: number; faults: { state: string; check?: { fixed_now: boolean } }[] }[];
      totals: Record<string, number>;
    };
    expect(doc.projects.map((p) => [p.project, p.open, p.fixed])).toEqual([['student-03', 0, 1]]);
    expect(doc.projects[0]!.faults[0]).toMatchObject({ state: 'fixed', check: { fixed_now: true } });
    expect(doc.totals).toMatchObject({ projects: 1, open: 0, fixed: 1, score: 2, max_score: 2 });
    const both = await run(envA, ['faults', 'check', '--projects', 'student-*', '--project', PROJECT]);
    expect([both.code, both.stderr]).toEqual([2, 'error: --project and --projects: give one of them\n']);
  }, 300_000);

  it('faults check --projects --watch: each fix printed with its project as it happens, until no fault of the class is open', async () => {
    const readsBefore = listReads();
    const child = spawn(process.execPath, [BIN, 'faults', 'check', '--projects', 'student-0[12]', '--watch', '1', '--server', gns3.url], {
      env: envA.env,
      cwd: envA.home,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let fixed = false;
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      // both students repair their link once the watch has seen the faults still there
      if (!fixed && /no change: 2 faults still present/.test(stdout)) {
        fixed = true;
        for (const s of ['student-01', 'student-02']) [...gns3.project(s).links.values()][0]!.filters = {};
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^2 projects: 2 with a fault open · 2 open, 0 fixed, 1 restored unfixed · score 0\/6$/m);
    expect(stdout).toMatch(/^\d\d:\d\d:\d\d student-01: ✓ #\d+ R1:e0 <-> R2:e0 link_packet_loss_30 fixed /m);
    expect(stdout).toMatch(/^\d\d:\d\d:\d\d student-02: ✓ #\d+ R1:e0 <-> R2:e0 link_high_delay fixed /m);
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('no fault is open in any project · 0 open, 2 fixed, 1 restored unfixed · score 4/6');
    // the project list read once for the whole watch, not again by each project in each round
    expect(stdout).toMatch(/no change: 2 faults still present/);
    expect(listReads() - readsBefore).toBe(1);
  }, 120_000);

  it('one seed draws the same faults in every project; the devices are read from each project', async () => {
    // the class shares three routers here: one project at a time, so two never talk to one console at once
    const r = await run(envA, [
      'inject',
      '--random',
      '2',
      '--seed',
      '5',
      '--device',
      'R3',
      '--projects',
      'student-*',
      '--jobs',
      '1',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(6);
    const rows = (JSON.parse(r.stdout) as { projects: Report[] }).projects;
    expect(rows.map((p) => p.project)).toEqual(STUDENTS);
    expect(rows.every((p) => p.status === 'planned' && p.seed === '5' && p.faults.length === 2)).toBe(true);
    expect(rows.every((p) => p.faults.every((f) => f.target === 'R3'))).toBe(true);
    expect(picks(rows[1]!)).toEqual(picks(rows[0]!));
    expect(picks(rows[2]!)).toEqual(picks(rows[0]!));
    const per = await run(envA, [
      'inject',
      '--random',
      '1',
      '--seed',
      'per-project',
      '--device',
      'R3',
      '--projects',
      'student-*',
      '--jobs',
      '1',
      '--json',
    ]);
    expect((JSON.parse(per.stdout) as { projects: Report[] }).projects.map((p) => p.seed)).toEqual(STUDENTS);
    const none = await run(envA, ['inject', '--random', '1', '--projects', 'teacher-*']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^error: --projects: no project matches "teacher-\*" on the controller \(projects: /);
  }, 300_000);
});

/**
 * Named lab checkpoints end to end on the real lab: FRR routers r1, r2, r3 behind a fake v3
 * controller (r3's console through a forwarder that can freeze it), a docker node whose
 * platform has no capture command and a built-in switch, and the built CLI. `checkpoint
 * save stage1`, two routers changed out of band, `diff`, a restore of r2 alone (r3's change
 * stays), a restore killed with SIGKILL half way and the restore that finishes it.
 * Needs root + frr (fails, never skips, when missing).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { startLab, type Lab } from '../lab/lab.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { frrLabNode, telnetNode } from '../fakes/gns3/nodes.js';
import { startHoldProxy, type HoldProxy } from '../helpers/hold-proxy.js';
import { cliEnv, runCli } from '../e2e/oneshot-cli.js';
import { SessionStore } from '../../src/sessions/store.js';
import { NamedCheckpointStore, controllerKey } from '../../src/checkpoints/named-store.js';

const ROUTERS = ['r1', 'r2', 'r3'];
let lab: Lab;
let gns3: FakeGns3;
let r3Console: HoldProxy;
const env = cliEnv({ GNS3_USER: 'admin', GNS3_PASSWORD: 'admin-pass' });
env.env.GNS3_COPILOT_DATA_DIR = `${env.home}/data`;
// a loaded machine can take more than the default 5 s to bring a console prompt back
env.env.GNS3_COPILOT_CONNECT_TIMEOUT_MS = '15000';
/** each router's running configuration when stage1 was saved (read out of band) */
const atStage1 = new Map<string, string>();

const cli = (args: string[], onSpawn?: (c: ChildProcess) => void) =>
  runCli([...args, '--server', gns3.url, '--project', 'class'], env.env, { timeoutMs: 150_000, ...(onSpawn ? { onSpawn } : {}) });
const running = (r: string) => lab.vtysh(r, 'show running-config').replace(/\s+$/, '');
const describeLo = (r: string, text: string) => lab.vtysh(r, 'configure terminal', 'interface lo', `description ${text}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const byName = <T extends { name: string }>(xs: T[]) => Object.fromEntries(xs.map((x) => [x.name, x]));

async function until(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

async function named<T>(read: (s: NamedCheckpointStore) => T): Promise<T> {
  const store = await SessionStore.open(`${env.home}/data`);
  try {
    return read(new NamedCheckpointStore(store.db));
  } finally {
    store.close();
  }
}

beforeAll(async () => {
  lab = await startLab({
    routers: ROUTERS,
    links: [
      ['r1', 'r2'],
      ['r2', 'r3'],
    ],
  });
  gns3 = await startFakeGns3({ api: 'v3', users: { admin: 'admin-pass' } });
  gns3.addProject({ name: 'class' });
  r3Console = await startHoldProxy(lab.device('r3').consolePort);
  gns3.addNode(frrLabNode(lab.device('r1'), { ports: 2 }));
  gns3.addNode(frrLabNode(lab.device('r2'), { ports: 2 }));
  gns3.addNode(frrLabNode({ ...lab.device('r3'), consolePort: r3Console.port }, { ports: 2 }));
  // a docker node's platform (linux) has no capture command; a switch has no configuration of its own
  gns3.addNode(telnetNode('srv', 1, { node_type: 'docker' }));
  gns3.addNode({ name: 'SW1', node_type: 'ethernet_switch', status: 'started', console: null, console_type: 'none' });
  gns3.addLink({ a: 'r1:e0', b: 'r2:e0' });
  gns3.addLink({ a: 'r2:e1', b: 'r3:e0' });
}, 180_000);

afterAll(async () => {
  await r3Console?.close();
  await gns3?.close();
  await lab?.stop();
  env.cleanup();
});

describe('named lab checkpoints on real FRR: save, diff, restore one device, a killed restore finished', () => {
  it('save stage1 keeps every router; the docker node and the switch are listed as not saved, with the reason', async () => {
    for (const r of ROUTERS) atStage1.set(r, running(r));
    const r = await cli(['checkpoint', 'save', 'stage1', '--note', 'addressing done', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({ checkpoint: 'stage1', project: 'class', note: 'addressing done', replaced: false, nodes: 5, links: 2 });
    const d = byName(j.devices as { name: string; status: string; platform?: string; error?: string }[]);
    for (const x of ROUTERS) expect(d[x]).toMatchObject({ status: 'saved', platform: 'frr' });
    expect(d.srv).toMatchObject({ status: 'not_saved', error: expect.stringMatching(/no capture command for linux/) });
    expect(d.SW1).toMatchObject({ status: 'not_saved', error: expect.stringMatching(/built-in ethernet_switch/) });
    // the stored text is each router's running configuration
    const saved = await named((s) =>
      s.get({ controller: controllerKey(gns3.url), project_id: gns3.project('class').data.project_id }, 'stage1'),
    );
    for (const x of ROUTERS) expect(saved!.devices.find((v) => v.device === x)!.config).toBe(atStage1.get(x));
    // the same name again is refused before anything is captured
    const again = await cli(['checkpoint', 'save', 'stage1']);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/checkpoint "stage1" exists .*--replace/);
  }, 180_000);

  it('list and show name the checkpoint, its devices and why two were not saved', async () => {
    const list = await cli(['checkpoint', 'list', '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout).checkpoints).toMatchObject([{ name: 'stage1', saved: 3, not_saved: 2, nodes: 5, links: 2 }]);
    const show = await cli(['checkpoint', 'show', 'stage1']);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toMatch(/^ {2}srv: NOT saved — no capture command for linux devices$/m);
    expect(show.stdout).toMatch(/^ {2}r2: saved \(frr, \d+ lines\)$/m);
    const none = await cli(['checkpoint', 'show', 'stage9']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no checkpoint "stage9" for project class \(checkpoints: stage1\)/);
  }, 120_000);

  it('after two routers change, diff shows both; restore --device r2 without --yes changes nothing and exits 6', async () => {
    describeLo('r2', 'stage2 on r2');
    describeLo('r3', 'stage2 on r3');
    const diff = await cli(['checkpoint', 'diff', 'stage1', '--json']);
    expect(diff.code, diff.stderr).toBe(0);
    const d = byName(JSON.parse(diff.stdout).devices as { name: string; status: string; diff: string }[]);
    expect(d.r1!.status).toBe('unchanged');
    expect(d.r2!.diff).toMatch(/^\+ description stage2 on r2$/m);
    expect(d.r3!.diff).toMatch(/^\+ description stage2 on r3$/m);
    expect(d.srv!.status).toBe('not_saved');
    const no = await cli(['checkpoint', 'restore', 'stage1', '--device', 'r2']);
    expect(no.code).toBe(6);
    expect(no.stderr).toMatch(/--yes/);
    expect(no.stdout).toMatch(/no description/);
    expect(running('r2')).toMatch(/description stage2 on r2/);
  }, 180_000);

  it('restore stage1 --device r2 --yes restores r2 only: r3 keeps its change, which diff still shows', async () => {
    const r = await cli(['checkpoint', 'restore', 'stage1', '--device', 'r2', '--yes', '--json']);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.devices.map((x: { name: string; status: string }) => [x.name, x.status])).toEqual([['r2', 'restored']]);
    expect(j.topology.status).toBe('unchanged');
    expect(running('r2')).toBe(atStage1.get('r2'));
    expect(running('r3')).toMatch(/description stage2 on r3/);
    const diff = await cli(['checkpoint', 'diff', 'stage1', '--device', 'r3']);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toMatch(/^r3: changed$/m);
    expect(diff.stdout).toMatch(/^\+ description stage2 on r3$/m);
    expect(await named((s) => s.db.prepare('SELECT status FROM lab_checkpoint_restores').pluck().all())).toEqual(['done']);
  }, 180_000);

  it('a restore killed with SIGKILL half way stays unfinished; the next restore resumes it and completes', async () => {
    describeLo('r1', 'stage2 on r1');
    // r3's console stops passing the restore on once it enters configuration mode
    r3Console.holdAt('configure terminal');
    let child: ChildProcess | undefined;
    const run = cli(['checkpoint', 'restore', 'stage1', '--yes', '--json'], (c) => (child = c));
    try {
      await until(() => r3Console.holding() && running('r1') === atStage1.get('r1'), 120_000, 'r1 restored while r3 waits');
      child!.kill('SIGKILL');
      expect((await run).code).toBeNull();
    } finally {
      r3Console.release();
    }
    expect(running('r3')).toMatch(/description stage2 on r3/);
    expect(await named((s) => s.db.prepare('SELECT status FROM lab_checkpoint_restores ORDER BY id').pluck().all())).toEqual([
      'done',
      'running',
    ]);
    const r = await cli(['checkpoint', 'restore', 'stage1', '--yes', '--json']);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stderr).toMatch(/resuming the unfinished restore of checkpoint stage1/);
    const j = JSON.parse(r.stdout);
    expect(j.resumed).toBe(true);
    const status = Object.fromEntries(j.devices.map((x: { name: string; status: string }) => [x.name, x.status]));
    expect(status).toEqual({ r1: 'unchanged', r2: 'unchanged', r3: 'restored', srv: 'not_saved', SW1: 'not_saved' });
    for (const x of ROUTERS) expect(running(x)).toBe(atStage1.get(x));
    expect(await named((s) => s.db.prepare('SELECT status FROM lab_checkpoint_restores ORDER BY id').pluck().all())).toEqual([
      'done',
      'done',
      'done',
    ]);
  }, 300_000);

  it('delete removes it; the name is free again', async () => {
    const r = await cli(['checkpoint', 'delete', 'stage1']);
    expect(r.code, r.stderr).toBe(0);
    const list = await cli(['checkpoint', 'list', '--json']);
    expect(JSON.parse(list.stdout).checkpoints).toEqual([]);
    expect(await named((s) => s.db.prepare('SELECT COUNT(*) FROM lab_checkpoint_devices').pluck().get())).toBe(0);
  }, 120_000);
});

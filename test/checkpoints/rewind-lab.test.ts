/**
 * diff and rewind end to end on the real lab: FRR routers r1, r2 and VPCS PC1
 * behind a fake v3 controller, the built CLI. Request 1 is recorded the way the
 * agent's checkpoint hook records it (capture before the change, then the device
 * tools change the lab): OSPF on both routers and an address on PC1.
 * Needs root + frr + vpcs (fails, never skips, when missing).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HumanMessage } from '@langchain/core/messages';
import { startLab, type Lab } from '../lab/lab.js';
import { ospfAreaZero } from '../lab/ospf.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { frrLabNode, telnetNode } from '../fakes/gns3/nodes.js';
import { cliEnv, runCli } from '../e2e/oneshot-cli.js';
import { SessionStore } from '../../src/sessions/store.js';
import { CheckpointStore } from '../../src/checkpoints/store.js';
import { captureDevices } from '../../src/checkpoints/capture.js';
import { executeVpcsCommands } from '../../src/tools/devices/commands.js';
import { executeMultipleDeviceConfigCommands } from '../../src/tools/devices/config.js';
import type { ToolContext } from '../../src/tools/types.js';
import { closePool, ctxFor, runTool, settingsWith } from '../devices/helpers.js';

const ROUTERS = ['r1', 'r2'];
const S = 'rewind-lab-session';
let lab: Lab;
let gns3: FakeGns3;
let ctx: ToolContext;
const env = cliEnv({ GNS3_USER: 'admin', GNS3_PASSWORD: 'admin-pass' });
env.env.GNS3_COPILOT_DATA_DIR = `${env.home}/data`;
// a loaded machine can take more than the default 5 s to bring a console prompt back
env.env.GNS3_COPILOT_CONNECT_TIMEOUT_MS = '15000';
let checkpoint: Map<string, string>;

const cli = (...args: string[]) => runCli([...args, '--server', gns3.url, '--project', 'rw'], env.env, { timeoutMs: 90_000 });
const neighboursFull = (r: string) => /Full/.test(lab.vtysh(r, 'show ip ospf neighbor'));
const running = (r: string) => lab.vtysh(r, 'show running-config').replace(/\s+$/, '');

beforeAll(async () => {
  lab = await startLab({ routers: ROUTERS, links: [['r1', 'r2']], pcs: [{ name: 'PC1', router: 'r1' }] });
  gns3 = await startFakeGns3({ api: 'v3', users: { admin: 'admin-pass' } });
  const projectId = gns3.addProject({ name: 'rw' });
  for (const r of ROUTERS) gns3.addNode(frrLabNode(lab.device(r)));
  gns3.addNode(telnetNode('PC1', lab.device('PC1').consolePort, { node_type: 'vpcs' }));
  ctx = ctxFor(settingsWith(), lab.topology());

  // Request 1 as the checkpoint hook records it: capture, then change.
  const store = await SessionStore.open(`${env.home}/data`);
  store.create({ id: S, copilot_mode: 'lab_automation_assistant', agent_mode: 'legacy', project_id: projectId, project_name: 'rw' });
  store.saver.log.append(S, 0, [new HumanMessage('configure OSPF on r1 and r2 and give PC1 an address')]);
  const cp = new CheckpointStore(store.db);
  const captured = await captureDevices([...ROUTERS, 'PC1'], ctx);
  checkpoint = new Map();
  for (const [device, c] of captured) {
    cp.saveDevice({ session_id: S, request_no: cp.currentRequestNo(S), call_id: 'cfg', device, ...c });
    checkpoint.set(device, c.config!);
  }
  store.close();
  const cfg = await runTool(
    executeMultipleDeviceConfigCommands,
    { device_configs: ROUTERS.map((r) => ({ device_name: r, config_commands: ospfAreaZero(lab, r, { routers: ROUTERS }) })) },
    ctx,
  );
  expect(cfg.status).toBe('success');
  await runTool(executeVpcsCommands, { device_configs: [{ device_name: 'PC1', commands: ['ip 192.168.1.10/24 192.168.1.1'] }] }, ctx);
  const deadline = Date.now() + 30_000;
  while (!ROUTERS.every(neighboursFull) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
  // a VPCS console serves one client at a time: leave it to the CLI
  closePool(ctx);
}, 120_000);

afterAll(async () => {
  if (ctx) closePool(ctx);
  await gns3?.close();
  await lab?.stop();
  env.cleanup();
});

describe('diff and rewind on real FRR and VPCS', () => {
  it('diff shows the lines the session added', async () => {
    expect(ROUTERS.every(neighboursFull)).toBe(true);
    const r = await cli('diff', S, '--json');
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    const r1 = j.devices.find((d: { name: string }) => d.name === 'r1');
    expect(r1.status).toBe('planned');
    expect(r1.diff).toMatch(/^\+router ospf$/m);
    expect(r1.diff).toMatch(/^\+ network 10\.0\.0\.0\/16 area 0$/m);
    expect(j.devices.find((d: { name: string }) => d.name === 'PC1').diff).toMatch(/^\+ip 192\.168\.1\.10\/24 192\.168\.1\.1$/m);
  }, 90_000);

  it('--dry-run and a rewind without --yes change nothing; without --yes the exit code is 6', async () => {
    const before = running('r1');
    const dry = await cli('rewind', S, '--dry-run', '--json');
    expect(dry.code, dry.stderr).toBe(0);
    const plan = JSON.parse(dry.stdout);
    expect(plan.devices.find((d: { name: string }) => d.name === 'r1').commands).toContain('no router ospf');
    expect(plan.devices.find((d: { name: string }) => d.name === 'PC1').commands).toEqual(['clear ip']);
    const no = await cli('rewind', S);
    expect(no.code).toBe(6);
    expect(no.stderr).toMatch(/--yes/);
    expect(running('r1')).toBe(before);
    expect(neighboursFull('r1')).toBe(true);
  }, 90_000);

  it('rewind --yes restores the checkpoint text, drops the adjacency and clears the PC, and is itself a request', async () => {
    const r = await cli('rewind', S, '--yes', '--json');
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.devices.map((d: { name: string; status: string }) => [d.name, d.status])).toEqual([
      ['PC1', 'restored'],
      ['r1', 'restored'],
      ['r2', 'restored'],
    ]);
    for (const x of ROUTERS) expect(running(x)).toBe(checkpoint.get(x));
    expect(lab.vtysh('r1', 'show ip ospf neighbor')).not.toMatch(/Full/);
    const pc = await captureDevices(['PC1'], ctx);
    closePool(ctx);
    expect(pc.get('PC1')!.config).toBe('');
    const store = await SessionStore.open(`${env.home}/data`);
    const cp = new CheckpointStore(store.db);
    expect(cp.requests(S).map((q) => q.kind)).toEqual(['prompt', 'rewind']);
    // the rewind checkpointed what it undid: rewinding it would bring OSPF back
    expect(cp.devicesAt(S, 2).find((d) => d.device === 'r1')!.config).toMatch(/router ospf/);
    store.close();
  }, 90_000);
});

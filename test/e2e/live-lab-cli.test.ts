/**
 * The built CLI on a lab the controller may close: `map` and one-shot runs never listen to
 * an auto_close project (the controller would close it, stopping every node, 5 s after
 * they leave), so the project stays opened with its nodes running; `notifications: always`
 * does listen, and then the controller closes it (the documented consequence). `map`
 * prints the lab as plain text; a `-c` run tells what changed since the last run in a
 * `drift` event.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { seedRingLab } from '../fakes/gns3/lab-seed.js';
import { fakeLlmServers } from '../helpers/fake-llm.js';
import { cliEnv, llmFlags, runCli } from './oneshot-cli.js';
import { parseStreamJson } from './oneshot-schema.js';
import { WebSocket } from 'ws';
import { until } from '../gns3/helpers.js';

const env = cliEnv();
afterAll(() => env.cleanup());
const startLlm = fakeLlmServers();
let gns3: FakeGns3 | undefined;
afterEach(async () => {
  await gns3?.close();
  gns3 = undefined;
});

async function lab(autoClose: boolean, size = 12) {
  gns3 = await startFakeGns3({ api: 'v2', closeDelayMs: 60, pingMs: 200 });
  const pid = gns3.addProject({ name: 'lab', auto_close: autoClose });
  seedRingLab(gns3, size, pid);
  return { fake: gns3, pid };
}

/** The auto_close delay has surely passed: a control project whose listener left is closed by then. */
async function afterCloseDelay(fake: FakeGns3) {
  const control = fake.addProject({ name: `control-${fake.notifications.autoClosed.length}`, auto_close: true });
  const ws = new WebSocket(`${fake.url.replace('http', 'ws')}/v2/projects/${control}/notifications/ws`);
  await new Promise((resolve) => ws.once('message', resolve));
  ws.close();
  await until(() => fake.project(control).data.status === 'closed', 5_000, 'the control project closed');
}

/** started nodes that can stop (switches are always started) */
const running = (fake: FakeGns3, pid: string) =>
  [...fake.project(pid).nodes.values()].filter((n) => n.status === 'started' && n.node_type !== 'ethernet_switch').length;

describe('map', () => {
  it('prints the lab as plain text with NO_COLOR: boxes, status words, ports, marked links, a legend', async () => {
    const { fake, pid } = await lab(true);
    const r = await runCli(['map', '--project', 'lab', '--width', '120', '--server', fake.url], env.env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = r.stdout;
    expect(out).not.toContain('\u001b');
    expect(out.split('\n')[0]).toBe('Project lab: 12 nodes, 12 links');
    for (const n of fake.project(pid).nodes.values()) expect(out).toMatch(new RegExp(`│ ${n.name}\\s+│`));
    expect(out).toMatch(/│ stopped\s+│/);
    expect(out).toMatch(/│ started\s+│/);
    expect(out).toMatch(/[┆┄]/); // the suspended link is dotted
    expect(out).toMatch(/e0/);
    expect(out).toContain('~1 R1:e0–R2:e1 filters packet_loss=50');
    expect(out).toContain('~2 R2:e0–R3:e1 suspended');
    expect(Math.max(...out.split('\n').map((l) => [...l].length))).toBeLessThanOrEqual(120);
    // it only read: never listened, never opened, nothing stopped
    expect(fake.notifications.connected).toEqual([]);
    await afterCloseDelay(fake);
    expect(fake.project(pid).data.status).toBe('opened');
    expect(running(fake, pid)).toBe(3);
  });

  it('refuses a bad --width or no project in one line, exit 2', async () => {
    const { fake } = await lab(true, 4);
    const bad = await runCli(['map', '--project', 'lab', '--width', '7', '--server', fake.url], env.env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('error: --width: columns, an integer 20..1000 (got 7)\n');
    const none = await runCli(['map', '--server', fake.url], env.env);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^error: no GNS3 project selected: pass --project/);
  });
});

describe('one-shot runs and the controller auto_close rule', () => {
  it('a one-shot run on an auto_close project never listens: the project stays opened with its nodes running', async () => {
    const { fake, pid } = await lab(true);
    const llm = await startLlm([{ text: 'looked' }]);
    const r = await runCli(['-p', 'look at the lab', '--project', 'lab', '--server', fake.url, ...llmFlags(llm.url)], env.env);
    expect(r.code).toBe(0);
    expect(fake.notifications.connected).toEqual([]);
    await afterCloseDelay(fake);
    expect(fake.project(pid).data.status).toBe('opened');
    expect(running(fake, pid)).toBe(3);
  });

  it('notifications always listens to it, and the controller closes it after the run (the documented consequence)', async () => {
    const { fake, pid } = await lab(true);
    const llm = await startLlm([{ text: 'looked' }]);
    const r = await runCli(['-p', 'look', '--project', 'lab', '--server', fake.url, ...llmFlags(llm.url)], {
      ...env.env,
      GNS3_COPILOT_NOTIFICATIONS: 'always',
    });
    expect(r.code).toBe(0);
    expect(fake.notifications.connected).toContainEqual({ projectId: pid, transport: 'ws' });
    await until(() => fake.project(pid).data.status === 'closed', 5_000, 'the auto close');
    expect(running(fake, pid)).toBe(0);
  });

  it('an auto_close-off project is listened to and stays open; -c tells what changed since the last run (stream-json drift)', async () => {
    const { fake, pid } = await lab(false);
    const llm = await startLlm([{ text: 'one' }, { text: 'two' }]);
    const flags = ['--project', 'lab', '--server', fake.url, ...llmFlags(llm.url)];
    const first = await runCli(['-p', 'remember the lab', ...flags], env.env);
    expect(first.code).toBe(0);
    expect(fake.notifications.connected).toContainEqual({ projectId: pid, transport: 'ws' });
    await until(() => fake.notifications.count(pid) === 0, 5_000, 'the run leaving the stream');
    fake.node('PC2', pid).status = 'started';
    fake.addNode({ name: 'PC99', node_type: 'vpcs', project: pid });
    const second = await runCli(['-p', 'what changed?', '-c', '--stream-json', ...flags], env.env);
    expect(second.code).toBe(0);
    const drift = parseStreamJson(second.stdout).filter((e) => e.type === 'drift');
    expect(drift).toEqual([expect.objectContaining({ type: 'drift', changes: ['PC2 started', 'node PC99 added'], total: 2 })]);
    await afterCloseDelay(fake);
    expect(fake.project(pid).data.status).toBe('opened');
  }, 90_000);
});

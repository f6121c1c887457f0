/**
 * The live topology over the fake controller's real notification streams (WebSocket and
 * HTTP stream, v2 and v3): the cache follows other clients' changes without a REST read,
 * a dropped stream falls back to REST reads with one notice and comes back, project.closed
 * ends the listening, and the auto_close rule is never triggered by the copilot unless the
 * user opted in.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createGns3Client, type Gns3Client } from '../../src/gns3/client.js';
import { LiveTopology, type LiveOptions } from '../../src/gns3/live-topology.js';
import { nullLogger } from '../../src/log.js';
import type { RawNode } from '../../src/gns3/raw.js';
import { ADMIN, rig, until, type Rig } from './helpers.js';

const FEED = { backoff: { firstMs: 20, maxMs: 200 }, silenceMs: 3_000 };
const VPCS = { v2: '19021f99-e36f-394d-b4a1-8aaa902ab9cc', v3: '52136454-1f50-590a-94e4-816bd02d1062' };

let current: Rig | undefined;
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await current?.close();
  current = undefined;
});

/** A second client of the same controller: the GUI, an instructor, another copilot. */
function otherClient(r: Rig): Gns3Client {
  const c = createGns3Client({ settings: r.settings, log: nullLogger, credentials: async () => ADMIN });
  cleanups.push(() => c.close());
  return c;
}

const nodeReads = (r: Rig) => r.fake.requests.filter((q) => q.method === 'GET' && /\/projects\/[^/]+\/nodes$/.test(q.path)).length;

async function liveOn(r: Rig, projectId: string, opts: Partial<LiveOptions> = {}): Promise<LiveTopology> {
  const project = await r.client.openProject(projectId);
  const live = new LiveTopology(project, { policy: 'auto', log: nullLogger, feed: FEED, ...opts });
  cleanups.push(() => live.close());
  await live.start();
  return live;
}

describe.each(['v2', 'v3'] as const)('live topology (%s)', (api) => {
  async function lab(autoClose: boolean, fakeOpts = {}) {
    current = await rig(api, { closeDelayMs: 60, pingMs: 200, ...fakeOpts });
    const pid = current.fake.addProject({ name: 'lab', auto_close: autoClose });
    current.fake.addNode({ name: 'R1', node_type: 'qemu', status: 'started' });
    current.fake.addNode({ name: 'R2', node_type: 'qemu', status: 'started' });
    current.fake.addLink({ a: 'R1:e0', b: 'R2:e0' });
    return { r: current, pid };
  }

  it('follows another client from the stream: the next read has its node without a GET /nodes', async () => {
    const { r, pid } = await lab(false);
    const live = await liveOn(r, pid);
    await until(() => live.healthy, 5_000, 'the stream');
    const reads = nodeReads(r);
    const other = otherClient(r);
    const pc = (await other.call('POST', `/projects/${pid}/templates/${VPCS[api]}`, {
      body: { x: 0, y: 0, compute_id: 'local' },
    })) as RawNode;
    await other.call('POST', `/projects/${pid}/nodes/${r.fake.node('R2').node_id}/stop`, { body: {} });
    await until(async () => (await live.topology()).topology.nodes.some((n) => n.name === pc.name), 2_000, 'the new node');
    const read = await live.topology();
    expect(read.from).toBe('cache');
    expect(read.topology.nodes.map((n) => `${n.name} ${n.status}`)).toEqual(['R1 started', 'R2 stopped', `${pc.name} stopped`]);
    expect(read.topology.links[0]!.ends.map((e) => `${e.node_name}:${e.port_name}`)).toEqual(['R1:e0', 'R2:e0']);
    await other.call('DELETE', `/projects/${pid}/nodes/${r.fake.node('R1').node_id}`);
    await until(async () => (await live.topology()).topology.links.length === 0, 2_000, 'the delete');
    expect((await live.topology()).topology.nodes.map((n) => n.name)).toEqual(['R2', pc.name]);
    expect(nodeReads(r)).toBe(reads);
    expect(live.takeNotices()).toEqual([]);
  });

  it('reads over REST with one notice while the stream is down, and from the cache once it is back', async () => {
    const { r, pid } = await lab(false);
    const live = await liveOn(r, pid);
    await until(() => live.healthy, 5_000, 'the stream');
    r.fake.notifications.refusing = true;
    r.fake.notifications.dropAll();
    await until(() => !live.healthy, 2_000, 'the drop');
    const before = nodeReads(r);
    // a change the stream cannot bring now: the REST read has it
    await otherClient(r).call('POST', `/projects/${pid}/nodes/${r.fake.node('R2').node_id}/stop`, { body: {} });
    const read = await live.topology();
    expect(read.from).toBe('controller');
    expect(read.topology.nodes.map((n) => n.status)).toEqual(['started', 'stopped']);
    expect((await live.topology()).from).toBe('controller');
    expect(nodeReads(r)).toBeGreaterThan(before);
    const notices = live.takeNotices();
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/notification stream is down .*read over REST before each LLM call until it is back/);
    r.fake.notifications.refusing = false;
    await until(() => live.healthy, 5_000, 'the stream back');
    const reads = nodeReads(r);
    expect((await live.topology()).from).toBe('cache');
    expect(nodeReads(r)).toBe(reads);
    expect(live.takeNotices()).toEqual([]);
  });

  it('stops listening on project.closed, never re-opens the project, and listens again once it is opened', async () => {
    const { r, pid } = await lab(false);
    const live = await liveOn(r, pid);
    await until(() => live.healthy, 5_000, 'the stream');
    const other = otherClient(r);
    await other.call('POST', `/projects/${pid}/close`, { body: {} });
    await until(() => live.status().mode === 'closed' && r.fake.notifications.count(pid) === 0, 2_000, 'the unsubscribe');
    expect(live.takeNotices().join('\n')).toMatch(/closed on the controller\. The copilot stopped listening/);
    const read = await live.topology();
    expect(read.from).toBe('controller');
    expect(read.topology.nodes.map((n) => n.status)).toEqual(['stopped', 'stopped']);
    expect(r.fake.project(pid).data.status).toBe('closed');
    expect(r.fake.requests.filter((q) => q.path.endsWith('/open'))).toEqual([]);
    await other.call('POST', `/projects/${pid}/open`, { body: {} });
    await until(() => live.healthy && r.fake.notifications.count(pid) === 1, 5_000, 'listening again');
  });

  it('falls back to the HTTP stream when the WebSocket route is refused', async () => {
    const { r, pid } = await lab(false);
    r.fake.notifications.wsRefused = true;
    const live = await liveOn(r, pid);
    await until(() => live.healthy, 5_000, 'the HTTP stream');
    expect(live.status().transport).toBe('http');
    await otherClient(r).call('PUT', `/projects/${pid}/links/${[...r.fake.project(pid).links.keys()][0]}`, { body: { suspend: true } });
    await until(async () => (await live.topology()).topology.links[0]!.suspend, 2_000, 'the link update');
  });

  it('does not listen to an auto_close project (policy auto): the project stays opened with its nodes running', async () => {
    const { r, pid } = await lab(true);
    const live = await liveOn(r, pid);
    expect(live.status()).toMatchObject({ mode: 'reads', healthy: false });
    expect(r.fake.notifications.count(pid)).toBe(0);
    expect((await live.topology()).from).toBe('controller');
    live.close();
    // a control project whose listener leaves at the same moment is closed by the rule: the delay has passed
    const control = r.fake.addProject({ name: 'control', auto_close: true });
    const ctl = await liveOn(r, control, { policy: 'always' });
    await until(() => ctl.healthy, 5_000, 'the control stream');
    ctl.close();
    await until(() => r.fake.project(control).data.status === 'closed', 2_000, 'the control project closed');
    expect(r.fake.project(pid).data.status).toBe('opened');
    expect(r.fake.project(pid).nodes.size).toBe(2);
    expect([...r.fake.project(pid).nodes.values()].map((n) => n.status)).toEqual(['started', 'started']);
    expect(r.fake.notifications.autoClosed).toEqual([control]);
  });

  it('notifications always on an auto_close project: the controller closes it 5 s (here 60 ms) after the copilot leaves', async () => {
    const { r, pid } = await lab(true);
    const live = await liveOn(r, pid, { policy: 'always' });
    expect(live.status().mode).toBe('stream');
    await until(() => live.healthy, 5_000, 'the stream');
    live.close();
    await until(() => r.fake.project(pid).data.status === 'closed', 2_000, 'the auto close');
    expect([...r.fake.project(pid).nodes.values()].map((n) => n.status)).toEqual(['stopped', 'stopped']);
  });
});

describe('live topology (v3 token)', () => {
  it('logs in again when the controller refuses the WebSocket token, and listens again', async () => {
    current = await rig('v3', { pingMs: 200 });
    const pid = current.fake.addProject({ name: 'lab', auto_close: false });
    const live = await liveOn(current, pid);
    await until(() => live.healthy, 5_000, 'the stream');
    const logins = () => current!.fake.requests.filter((q) => q.path === '/v3/access/users/authenticate').length;
    const before = logins();
    current.fake.revokeTokens();
    current.fake.notifications.dropAll();
    await until(() => logins() > before && live.healthy, 5_000, 'a new login and the stream');
  });
});

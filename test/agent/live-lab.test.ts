/**
 * A session on a lab that changes under it: the real session over the fake controller's
 * notification stream (v2 and v3) and the fake LLM. The per-call topology comes from the
 * stream's cache (no GET /nodes), a change by another client reaches the model as one
 * drift note at the start of the next request, a dropped stream falls back to REST with
 * one notice and comes back, and a project closed by another client is never re-opened or
 * listened to by the copilot. Across processes, the topology a session last saw is in
 * sessions.db: a resumed session is told what changed, with no stream at all.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGns3Client, type Gns3Client } from '../../src/gns3/client.js';
import { nullLogger } from '../../src/log.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { collect, ofType, session, testSettings, testTools, useFakeLlm, type ToolLog } from './helpers.js';
import { until } from '../gns3/helpers.js';
import { settingsSchema } from '../../src/config/schema.js';
import type { FakeLlm, FakeTurn } from '../fakes/llm/server.js';

const { tmp, startLlm } = useFakeLlm('gc-live-');
const ADMIN = { username: 'admin', password: 'pw' };
const VPCS = { v2: '19021f99-e36f-394d-b4a1-8aaa902ab9cc', v3: '52136454-1f50-590a-94e4-816bd02d1062' };

let gns3: FakeGns3;
let other: Gns3Client;
let pid: string;
const prevEnv = { user: process.env.GNS3_USER, pw: process.env.GNS3_PASSWORD };

async function lab(api: 'v2' | 'v3', autoClose = false) {
  gns3 = await startFakeGns3({ api, users: api === 'v3' ? { admin: ADMIN.password } : undefined, closeDelayMs: 60, pingMs: 200 });
  pid = gns3.addProject({ name: 'lab', auto_close: autoClose });
  for (const name of ['R1', 'R2', 'R3']) gns3.addNode({ name, node_type: 'qemu', status: 'started' });
  gns3.addLink({ a: 'R1:e0', b: 'R2:e0' });
  other = createGns3Client({
    settings: settingsSchema.parse({ server: gns3.url }),
    log: nullLogger,
    credentials: async () => ADMIN,
  });
}
beforeEach(() => {
  process.env.GNS3_USER = ADMIN.username;
  process.env.GNS3_PASSWORD = ADMIN.password;
});
afterEach(async () => {
  await other.close();
  await gns3.close();
  process.env.GNS3_USER = prevEnv.user;
  process.env.GNS3_PASSWORD = prevEnv.pw;
  if (prevEnv.user === undefined) delete process.env.GNS3_USER;
  if (prevEnv.pw === undefined) delete process.env.GNS3_PASSWORD;
});

const nodeReads = () => gns3.requests.filter((q) => q.method === 'GET' && /\/projects\/[^/]+\/nodes$/.test(q.path)).length;
const templatesCall = { name: 'get_gns3_templates', args: {} };
/** a turn of `calls` LLM calls: calls-1 tool rounds, then the answer */
const turn = (calls: number, answer: string): FakeTurn[] => [
  ...Array.from({ length: calls - 1 }, (_, i) => ({ tool_calls: [{ id: `t${i}-${answer}`, ...templatesCall }] })),
  { text: answer },
];
const chats = (llm: FakeLlm) => llm.requests.filter((r) => r.purpose === null);
const systemOf = (llm: FakeLlm, n: number) => String(chats(llm)[n]!.body.messages[0]!.content);

async function liveSession(llm: FakeLlm, extra: Record<string, unknown> = {}) {
  const log: ToolLog = { calls: [] };
  const settings = testSettings(llm.url, tmp.dir, { server: gns3.url, project: 'lab', ...extra });
  return createLive(settings, log);
}
const createLive = (settings: ReturnType<typeof testSettings>, log: ToolLog) => session(settings, testTools(log));

describe.each(['v2', 'v3'] as const)('a session on a live lab (%s)', (api) => {
  it('reads the per-call topology from the stream and tells the model what another client changed', async () => {
    await lab(api);
    const llm = await startLlm([...turn(1, 'first'), ...turn(10, 'second')]);
    const s = await liveSession(llm);
    await collect(s.send('look at the lab'));
    const view = (await s.lab())!;
    await until(() => view.status().live, 5_000, 'the stream');
    // another client (the GUI, an instructor) changes the lab between the two requests
    await other.call('POST', `/projects/${pid}/templates/${VPCS[api]}`, { body: { x: 0, y: 0, compute_id: 'local' } });
    await other.call('POST', `/projects/${pid}/nodes/${gns3.node('R3').node_id}/stop`, { body: {} });
    await other.call('DELETE', `/projects/${pid}/links/${[...gns3.project(pid).links.keys()][0]}`);
    await until(async () => (await view.topology()).nodes.length === 4, 2_000, 'the new node in the cache');
    const reads = nodeReads();
    const ev = await collect(s.send('and now?'));
    await s.close();
    // ten LLM calls, each with the topology, none of them a REST read
    expect(chats(llm)).toHaveLength(11);
    expect(nodeReads()).toBe(reads);
    for (let i = 1; i <= 10; i++) expect(systemOf(llm, i)).toMatch(/^PC1 \(vpcs\) stopped /m);
    expect(ofType(ev, 'drift')).toEqual([
      { type: 'drift', changes: ['R3 stopped', 'node PC1 added', 'link R1:e0–R2:e0 deleted'], total: 3 },
    ]);
    // the model reads it once, before the user's message
    const msgs = chats(llm)[1]!.body.messages;
    const at = msgs.findIndex((m) => String(m.content).includes('Since your last turn'));
    expect(String(msgs[at]!.content)).toContain('R3 stopped; node PC1 added; link R1:e0–R2:e0 deleted');
    expect(msgs[at + 1]!.content).toBe('and now?');
    expect(chats(llm)[0]!.body.messages.some((m) => String(m.content).includes('Since your last turn'))).toBe(false);
  });

  it('falls back to a REST read per call with one notice while the stream is down, then reads the cache again', async () => {
    await lab(api);
    const llm = await startLlm([...turn(1, 'warm'), ...turn(3, 'down'), ...turn(3, 'back')]);
    const s = await liveSession(llm);
    await collect(s.send('warm up'));
    const view = (await s.lab())!;
    await until(() => view.status().live, 5_000, 'the stream');
    gns3.notifications.refusing = true;
    gns3.notifications.dropAll();
    await until(() => !view.status().live, 2_000, 'the drop');
    let reads = nodeReads();
    const down = await collect(s.send('while it is down'));
    expect(nodeReads()).toBeGreaterThan(reads);
    expect(ofType(down, 'notice').map((n) => n.message)).toEqual([
      expect.stringMatching(/notification stream is down .*read over REST before each LLM call until it is back/),
    ]);
    gns3.notifications.refusing = false;
    await until(() => view.status().live, 5_000, 'the stream back');
    reads = nodeReads();
    const back = await collect(s.send('and now'));
    await s.close();
    expect(nodeReads()).toBe(reads);
    expect(ofType(back, 'notice')).toEqual([]);
  });

  it('never keeps a project open after project.closed: it stops listening and does not re-open it', async () => {
    await lab(api);
    const llm = await startLlm([...turn(1, 'one'), ...turn(2, 'two')]);
    const s = await liveSession(llm);
    await collect(s.send('hello'));
    const view = (await s.lab())!;
    await until(() => view.status().live, 5_000, 'the stream');
    await other.call('POST', `/projects/${pid}/close`, { body: {} });
    await until(() => gns3.notifications.count(pid) === 0, 2_000, 'the copilot leaving the project stream');
    const ev = await collect(s.send('what now?'));
    await s.close();
    expect(gns3.project(pid).data.status).toBe('closed');
    expect(gns3.notifications.count(pid)).toBe(0);
    expect(gns3.requests.filter((q) => q.path.endsWith('/open'))).toEqual([]);
    expect(ofType(ev, 'notice').map((n) => n.message)).toEqual([
      expect.stringMatching(/closed on the controller\. The copilot stopped listening/),
    ]);
    expect(ofType(ev, 'drift')[0]!.changes).toEqual(['R1 stopped', 'R2 stopped', 'R3 stopped']);
  });
});

describe('drift across processes', () => {
  it('a resumed session is told what changed since its last request, without a stream (auto_close project)', async () => {
    await lab('v2', true);
    const llm = await startLlm([{ text: 'one' }, { text: 'two' }]);
    const first = await liveSession(llm);
    const a = await collect(first.send('remember this lab'));
    await first.close();
    expect(gns3.notifications.count(pid)).toBe(0);
    await other.call('POST', `/projects/${pid}/nodes/${gns3.node('R2').node_id}/stop`, {});
    await other.call('PUT', `/projects/${pid}/nodes/${gns3.node('R1').node_id}`, { body: { name: 'Core1' } });
    const sessionId = ofType(a, 'init')[0]!.session_id;
    const again = await session(testSettings(llm.url, tmp.dir, { server: gns3.url, project: 'lab' }), testTools({ calls: [] }), {
      sessionId,
    });
    const ev = await collect(again.send('anything new?'));
    await again.close();
    expect(ofType(ev, 'drift')).toEqual([{ type: 'drift', changes: ['R1 renamed to Core1', 'R2 stopped'], total: 2 }]);
    expect(JSON.stringify(chats(llm)[1]!.body.messages)).toContain('R1 renamed to Core1; R2 stopped');
  });

  it('names the first 20 changes and counts the rest', async () => {
    await lab('v2', true);
    const llm = await startLlm([{ text: 'one' }, { text: 'two' }]);
    const first = await liveSession(llm);
    const a = await collect(first.send('remember'));
    await first.close();
    for (let i = 0; i < 23; i++) gns3.addNode({ name: `PC${i + 1}`, node_type: 'vpcs' });
    const again = await session(testSettings(llm.url, tmp.dir, { server: gns3.url, project: 'lab' }), testTools({ calls: [] }), {
      sessionId: ofType(a, 'init')[0]!.session_id,
    });
    const ev = await collect(again.send('and?'));
    await again.close();
    const d = ofType(ev, 'drift')[0]!;
    expect(d.total).toBe(23);
    expect(d.changes).toHaveLength(20);
    expect(d.changes[19]).toBe('node PC20 added');
    expect(JSON.stringify(chats(llm)[1]!.body.messages)).toContain('node PC20 added; and 3 more changes');
  });
});

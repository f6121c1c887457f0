/**
 * AGENT_MAX_DURATION_SECONDS across resume and fork: the tree's budget counts the time its
 * requests ran, not its age. The age is simulated through the stored rows (the tree's
 * creation time and each request's running time in sessions.db), never by sleeping. Real
 * graph, real SQLite file, fake LLM over HTTP.
 */
import { describe, expect, it } from 'vitest';
import type { FakeLlm, FakeRequest, FakeTurn } from '../../fakes/llm/server.js';
import { collect, ofType, session, showCall, useFakeLlm, testSettings, testTools, type ToolLog } from '../helpers.js';
import { SessionStore } from '../../../src/sessions/store.js';
import { review } from './helpers.js';

const { tmp, startLlm } = useFakeLlm('gc-tree-duration-');
const chat = (l: FakeLlm): FakeRequest[] => l.requests.filter((r) => r.purpose === null);
const delegate = (id: string, goal: string): FakeTurn => ({ tool_calls: [{ id, name: 'agent', args: { task_brief: { goal } } }] });
const HOUR = 3_600_000;

/** One delegated check: the root delegates, the child runs a show call and reports, the root reviews and answers. */
const delegatedCheck = (id: string, device: string, answer: string): FakeTurn[] => [
  delegate(id, `check ${device}`),
  { tool_calls: [showCall(device, `${id}_show`)] },
  { text: `${device}: Full` },
  review(id),
  { text: answer },
];

/** Rewrites what the sessions DB says about a tree's time: its creation and each request's running time. */
async function ageTree(rootId: string, o: { createdHoursAgo: number; runningMs: number }): Promise<void> {
  const store = await SessionStore.open(tmp.dir);
  try {
    const created = Date.now() - o.createdHoursAgo * HOUR;
    store.db.prepare('UPDATE tree_usage SET started_ms = ? WHERE root_id = ?').run(created, rootId);
    store.db.prepare('UPDATE agent_trees SET created_at = ? WHERE root_id = ?').run(new Date(created).toISOString(), rootId);
    const rows = store.db.prepare('SELECT request FROM tree_request_time WHERE root_id = ?').pluck().all(rootId) as number[];
    expect(rows.length).toBeGreaterThan(0);
    // the whole running time on the first request, nothing on the others
    const set = store.db.prepare('UPDATE tree_request_time SET running_ms = ?, started_ms = ? WHERE root_id = ? AND request = ?');
    for (const r of rows) set.run(r === Math.min(...rows) ? o.runningMs : 0, created, rootId, r);
  } finally {
    store.close();
  }
}

describe('the duration budget of a recursive tree counts the time its requests ran', () => {
  it('a session resumed hours after it started, whose requests ran seconds, still delegates and runs its tools', async () => {
    const llm = await startLlm([...delegatedCheck('a', 'R1', 'first answer'), ...delegatedCheck('b', 'R2', 'second answer')]);
    const settings = testSettings(llm.url, tmp.dir);
    const s = await session(settings, testTools({ calls: [] }), { env: { AGENT_MODE: 'recursive' } });
    await collect(s.send('check R1'));
    await s.close();
    // created five hours ago (default AGENT_MAX_DURATION_SECONDS: one hour), ran 4 seconds
    await ageTree(s.id, { createdHoursAgo: 5, runningMs: 4_000 });

    const log: ToolLog = { calls: [] };
    const r = await session(settings, testTools(log), { sessionId: s.id, env: {} });
    const ev = await collect(r.send('now check R2'));
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('done');
    expect(log.calls.map((c) => c.name)).toEqual(['execute_multiple_device_commands']);
    expect(chat(llm).at(-1)!.body.tools).toBeDefined();
    expect(
      ofType(ev, 'content')
        .map((e) => e.delta)
        .join(''),
    ).toContain('second answer');
    const usage = r.usage()!;
    expect(usage.exhausted).toBeNull();
    // the time that counts: the 4 s stored plus this request's, far under an hour
    expect(usage.running_ms).toBeGreaterThanOrEqual(4_000);
    expect(usage.running_ms).toBeLessThan(HOUR);
    await r.close();
  });

  it('the running time does count: a tree created minutes ago whose requests ran an hour gets only its final answer', async () => {
    const llm = await startLlm([{ text: 'first' }, { tool_calls: [showCall('R1', 'x1')] }, { text: 'answer with what I have' }]);
    const settings = testSettings(llm.url, tmp.dir);
    const s = await session(settings, testTools({ calls: [] }), { env: { AGENT_MODE: 'recursive' } });
    await collect(s.send('hello'));
    await s.close();
    await ageTree(s.id, { createdHoursAgo: 0.1, runningMs: HOUR });

    const log: ToolLog = { calls: [] };
    const r = await session(settings, testTools(log), { sessionId: s.id, env: {} });
    const ev = await collect(r.send('check R1'));
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('budget');
    expect(log.calls).toHaveLength(0);
    expect(r.usage()!.exhausted).toBe('duration');
    await r.close();
  });

  it('a tree the previous release stopped by its age (duration, no running time recorded) runs again after the upgrade', async () => {
    const llm = await startLlm([{ text: 'first' }, ...delegatedCheck('a', 'R1', 'answer after the upgrade')]);
    const settings = testSettings(llm.url, tmp.dir);
    const s = await session(settings, testTools({ calls: [] }), { env: { AGENT_MODE: 'recursive' } });
    await collect(s.send('hello'));
    await s.close();
    // the file as the previous release left it: no running time per request, the tree marked exhausted by its age
    const store = await SessionStore.open(tmp.dir);
    store.db.exec('DROP TABLE tree_request_time');
    store.db.prepare("UPDATE tree_usage SET exhausted = 'duration', started_ms = ? WHERE root_id = ?").run(Date.now() - 26 * HOUR, s.id);
    store.close();

    const log: ToolLog = { calls: [] };
    const r = await session(settings, testTools(log), { sessionId: s.id, env: {} });
    const ev = await collect(r.send('check R1'));
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('done');
    expect(log.calls).toHaveLength(1);
    expect(r.usage()!.exhausted).toBeNull();
    await r.close();
  });

  it('each request stores the time it ran; --fork copies the spent running time and goes on from it', async () => {
    const llm = await startLlm([{ text: 'one' }, { text: 'two' }, { text: 'fork answer' }]);
    const settings = testSettings(llm.url, tmp.dir);
    const s = await session(settings, testTools({ calls: [] }), { env: { AGENT_MODE: 'recursive' } });
    await collect(s.send('first'));
    await collect(s.send('second'));
    await s.close();
    await ageTree(s.id, { createdHoursAgo: 30, runningMs: 1_234 });

    const store = await SessionStore.open(tmp.dir);
    const rowsOf = (id: string) =>
      store.db.prepare('SELECT request, running_ms FROM tree_request_time WHERE root_id = ? ORDER BY request').all(id) as {
        request: number;
        running_ms: number;
      }[];
    expect(rowsOf(s.id).map((r) => r.request)).toEqual([1, 2]);

    const f = await session(settings, testTools({ calls: [] }), { sessionId: s.id, fork: true, env: {} });
    expect(rowsOf(f.id)).toEqual(rowsOf(s.id));
    expect(f.usage()!.running_ms).toBe(1_234);
    const ev = await collect(f.send('go on'));
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('done');
    expect(rowsOf(f.id).map((r) => r.request)).toEqual([1, 2, 3]);
    expect(f.usage()!.running_ms).toBeGreaterThanOrEqual(1_234);
    expect(f.usage()!.running_ms).toBeLessThan(HOUR);
    // the original keeps its own rows
    expect(rowsOf(s.id)).toHaveLength(2);
    store.close();
    await f.close();
  });
});

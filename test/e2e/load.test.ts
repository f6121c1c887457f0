/**
 * A classroom's worth of concurrent one-shot runs, bounded for the suite (the
 * bench runs 30 and times them, bench/load.bench.ts): one fake controller in
 * front of real FRR consoles, one fake LLM, each run a `show` on a router and
 * an answer; half the runs write one shared sessions.db. Every run exits 0, no
 * SQLite busy/lock error reaches a user, and every turn is in the database
 * afterwards. Needs root + frr (fails, never skips, when missing).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { join } from 'node:path';
import { SessionStore } from '../../src/sessions/store.js';
import { parseJsonResult } from './oneshot-schema.js';
import { runClassroom, startClassroom, type Classroom } from './classroom-load.js';

/** runs at once: enough for several writers on one file and on each console, modest on 2 cores */
const RUNS = 12;

let room: Classroom | undefined;
beforeAll(async () => {
  room = await startClassroom();
}, 120_000);
afterAll(async () => {
  await room?.stop();
});

it(`${RUNS} concurrent runs, half on one sessions.db: all exit 0, no lock error, no turn lost`, async () => {
  const runs = await runClassroom(room!, RUNS, 'load');
  for (const r of runs) {
    expect(r.result.code, `${r.tag}\n${r.result.stderr}`).toBe(0);
    expect(r.result.stderr).not.toMatch(/SQLITE_BUSY|database is locked|SQLITE_LOCKED/i);
    const j = parseJsonResult(r.result.stdout);
    expect(j.stopped_reason).toBe('done');
    expect(j.tool_calls.map((t) => [t.id, t.status])).toEqual([[`${r.tag}-show`, 'success']]);
    expect(j.tool_calls[0]!.output).toMatch(/FRRouting/);
    expect(j.response).toBe(`${r.tag}: ${r.router} runs FRR.`);
  }
  expect(room!.llm.remaining()).toBe(0);
  // every turn is stored: human, the call, its result, the answer
  const byHome = new Map<string, typeof runs>();
  for (const r of runs) byHome.set(r.env.home, [...(byHome.get(r.env.home) ?? []), r]);
  expect(byHome.size).toBe(RUNS / 2 + 1);
  for (const [home, group] of byHome) {
    const store = await SessionStore.open(join(home, 'data', 'gns3-copilot'));
    try {
      expect(store.list({ limit: 100 }).total).toBe(group.length);
      for (const r of group) {
        const id = parseJsonResult(r.result.stdout).session_id!;
        expect((await store.messages(id)).length, r.tag).toBe(4);
        expect(store.get(id)!.message_count).toBe(4);
      }
    } finally {
      store.close();
    }
  }
}, 300_000);

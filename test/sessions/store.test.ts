/**
 * Session store: the append-only messages
 * table, delta checkpoints, migration of a database written by 0.1.0, kill -9
 * inside the write, a 1,000-turn session, two processes on one file, the
 * per-session lease and --fork. The lease race between two real CLI processes
 * is in store-lease.test.ts, so the two files run on both workers.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { startFakeLlm, type FakeLlm } from '../fakes/llm/server.js';
import { collect, ofType, session, showCall, tempDir, testSettings, testTools } from '../agent/helpers.js';
import { SessionStore } from '../../src/sessions/store.js';
import { SCHEMA_VERSION } from '../../src/sessions/migrations.js';
import { SessionInUseError } from '../../src/sessions/lease.js';
import { TokenCounter } from '../../src/agent/tokens.js';
import { toTranscript } from '../../src/sessions/transcript.js';
import { stubGraph, stubModel, stubToolCall } from '../helpers/stub-graph.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../fixtures/sessions-v1.db', import.meta.url));
let llm: FakeLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});
const dirs: { cleanup(): void }[] = [];
afterAll(() => dirs.forEach((d) => d.cleanup()));
const tmp = (p: string) => {
  const d = tempDir(p);
  dirs.push(d);
  return d.dir;
};

function child(
  script: string,
  args: string[],
): { proc: ChildProcess; out: () => string; waitFor(text: string, ms?: number): Promise<void>; exit: Promise<number | null> } {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL(`../agent/fixtures/${script}`, import.meta.url)), ...args],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      cwd: ROOT,
    },
  );
  let buf = '';
  proc.stdout.on('data', (d: Buffer) => (buf += d.toString()));
  const exit = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  return {
    proc,
    out: () => buf,
    exit,
    async waitFor(text, ms = 60_000) {
      const t0 = Date.now();
      while (!buf.includes(text)) {
        if (proc.exitCode !== null) throw new Error(`child exited (${proc.exitCode}) before ${text}: ${buf}`);
        if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${text}: ${buf}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}

const latestCheckpointBlob = (store: SessionStore, id: string) =>
  Buffer.from(
    store.db
      .prepare("SELECT checkpoint FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1")
      .pluck()
      .get(id) as Uint8Array,
  ).toString('utf8');

describe('messages table and delta checkpoints', () => {
  it('stores each message once; checkpoints hold a reference, not the history', async () => {
    const dir = tmp('gc-delta-');
    llm = await startFakeLlm([{ tool_calls: [showCall('R1', 'd1')] }, { text: 'R1 is fine.' }, { text: 'second answer' }], {
      title: 'Delta',
    });
    const s = await session(testSettings(llm.url, dir), testTools({ calls: [] }));
    await collect(s.send('first question about R1'));
    await collect(s.send('second question'));
    await s.close();
    const store = await SessionStore.open(dir);
    const rows = store.db
      .prepare('SELECT seq, role, content, tool_call_ids, tokens FROM messages WHERE session_id = ? ORDER BY seq')
      .all(s.id) as { seq: number; role: string; content: string; tool_call_ids: string | null; tokens: number | null }[];
    expect(rows.map((r) => r.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant']);
    expect(rows.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(JSON.parse(rows[1]!.tool_call_ids!)).toEqual(['d1']);
    expect(JSON.parse(rows[2]!.tool_call_ids!)).toEqual(['d1']);
    // counted once by the context prep, stored, so a restart does not count again
    expect(rows.slice(0, 4).every((r) => typeof r.tokens === 'number' && r.tokens > 0)).toBe(true);
    const blob = latestCheckpointBlob(store, s.id);
    expect(blob).not.toContain('first question about R1');
    expect(blob).not.toContain('R1 is fine.');
    expect(store.db.prepare('SELECT version FROM schema_version').pluck().get()).toBe(SCHEMA_VERSION);
    store.close();
  });

  it('a database written by 0.1.0 migrates on first open and its sessions resume', async () => {
    const dir = tmp('gc-migrate-');
    copyFileSync(FIXTURE, join(dir, 'sessions.db'));
    const store = await SessionStore.open(dir);
    const sessions = store.list().rows;
    expect(sessions).toHaveLength(3);
    for (const r of sessions) expect((await store.messages(r.id)).length).toBe(r.message_count);
    const longest = sessions.find((r) => r.message_count === 6)!;
    const before = toTranscript(await store.messages(longest.id));
    expect(before.map((e) => e.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant']);
    expect(before[1]!.tool_calls![0]).toMatchObject({ id: 'call_fx_1', name: 'execute_multiple_device_commands' });
    store.close();

    llm = await startFakeLlm([{ text: 'after the migration' }]);
    const s = await session(testSettings(llm.url, dir), testTools({ calls: [] }), { sessionId: longest.id });
    expect((await s.transcript()).slice(0, 6)).toEqual(before);
    await collect(s.send('still there?'));
    const sent = llm.requests.find((r) => r.purpose === null)!.body.messages;
    expect(sent.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user', 'assistant', 'user']);
    expect(sent[1]!.content).toBe('is R1 ok?');
    await s.close();
    const again = await SessionStore.open(dir);
    const after = toTranscript(await again.messages(longest.id));
    expect(after.slice(0, 6)).toEqual(before);
    expect(after.slice(6).map((e) => e.content)).toEqual(['still there?', 'after the migration']);
    expect(latestCheckpointBlob(again, longest.id)).not.toContain('is R1 ok?');
    again.close();
  });

  it('a database from a newer release is refused with a message naming the file', async () => {
    const dir = tmp('gc-newer-');
    const store = await SessionStore.open(dir);
    store.db.prepare('UPDATE schema_version SET version = ?').run(SCHEMA_VERSION + 1);
    store.close();
    await expect(SessionStore.open(dir)).rejects.toThrow(
      new RegExp(`${join(dir, 'sessions.db').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} uses sessions schema ${SCHEMA_VERSION + 1}`),
    );
  });

  it('kill -9 inside the write transaction, then --continue keeps every completed turn', async () => {
    const dir = tmp('gc-killwrite-');
    llm = await startFakeLlm(
      Array.from({ length: 6 }, (_, i) => ({ text: `answer ${i + 1}` })),
      { title: 'Kill test' },
    );
    const c = child('child-write.ts', [llm.url, dir, '4', '1']);
    await c.waitFor('TURN_DONE 3');
    await c.waitFor('IN_WRITE');
    c.proc.kill('SIGKILL');
    await c.exit;
    const id = /TURN_DONE 3 (\S+)/.exec(c.out())![1]!;

    const s = await session(testSettings(llm.url, dir), testTools({ calls: [] }), { continueLatest: true });
    expect(s.id).toBe(id);
    const kept = await s.transcript();
    expect(kept.map((e) => e.content)).toEqual(
      ['turn 1', 'answer 1', 'turn 2', 'answer 2', 'turn 3', 'answer 3'].map((t) => (t.startsWith('turn') ? `${t} of ${c.proc.pid}` : t)),
    );
    const ev = await collect(s.send('go on'));
    expect(ofType(ev, 'error')).toHaveLength(0);
    expect((await s.transcript()).map((e) => e.content).slice(-2)).toEqual(['go on', 'answer 4']);
    expect(s.info()!.message_count).toBe(8);
    await s.close();
  });

  it('kill -9 mid-turn: the repaired session row gets its title and message count', async () => {
    const dir = tmp('gc-killrow-');
    llm = await startFakeLlm([{ text: 'Checking R1.', tool_calls: [showCall('R1', 'k1')] }]);
    const proc = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        fileURLToPath(new URL('../agent/fixtures/child-turn.ts', import.meta.url)),
        llm.url,
        dir,
        'check R1 routes please',
      ],
      { stdio: ['ignore', 'pipe', 'inherit'], cwd: ROOT },
    );
    await new Promise<void>((resolve, reject) => {
      let buf = '';
      proc.stdout.on('data', (d: Buffer) => (buf += d.toString()) && buf.includes('TOOL_STARTED') && resolve());
      proc.on('exit', (code) => reject(new Error(`child exited early (${code}): ${buf}`)));
    });
    proc.kill('SIGKILL');
    await new Promise((r) => proc.once('exit', r));
    // the next request fails at the provider: the row is still brought up to date by the repair
    llm.push({ error: { status: 400, message: 'bad request' } });
    const s = await session(testSettings(llm.url, dir), testTools({ calls: [] }), { continueLatest: true });
    expect(s.info()!.title).toBeNull();
    await collect(s.send('go on'));
    const row = s.info()!;
    expect(row.title).toBe('check R1 routes please');
    expect(row.message_count).toBeGreaterThanOrEqual(3);
    await s.close();
  });

  it('a 1,000-turn session resumes with an identical transcript', async () => {
    const dir = tmp('gc-1000-');
    const store = await SessionStore.open(dir);
    const counter = await TokenCounter.create('cl100k_base');
    store.saver.tokens = counter;
    const model = stubModel((n) => (n % 2 === 0 ? stubToolCall(`t${n}`) : new AIMessageChunk({ content: `answer ${n}` })));
    const { send, tool } = stubGraph(store.saver, { model, counter, limitK: 32, toolOutput: '{"status":"success","output":"R1 up"}' });
    const row = store.create({ copilot_mode: 'teaching_assistant', agent_mode: 'flat' });
    let last: { messages: BaseMessage[] } | undefined;
    for (let t = 0; t < 1000; t++) {
      last = await send(row.id, `q${t}`, { maxIterations: 5 });
      if (t % 50 === 0) store.pruneCheckpoints(row.id);
    }
    store.recordRequest(row.id, { message_count: last!.messages.length, llm_calls: 0, input_tokens: 0, output_tokens: 0 });
    store.saver.flushTokenCounts(row.id);
    const expected = toTranscript(last!.messages);
    expect(expected).toHaveLength(4000);
    store.close();

    llm = await startFakeLlm([{ text: 'turn 1001' }]);
    const t0 = performance.now();
    const s = await session(testSettings(llm.url, dir), [tool], { sessionId: row.id });
    const resumed = await s.transcript();
    const resumeMs = performance.now() - t0;
    expect(resumed).toEqual(expected);
    expect(resumeMs).toBeLessThan(3000);
    await collect(s.send('one more'));
    const sent = llm.requests.find((r) => r.purpose === null)!.body.messages;
    expect(sent.at(-1)!.content).toBe('one more');
    expect(sent.at(-2)!.content).toBe('answer 1999');
    await s.close();
    const check = await SessionStore.open(dir);
    expect((await check.messages(row.id)).length).toBe(4002);
    expect(
      check.db.prepare('SELECT COUNT(*) FROM messages WHERE session_id = ? AND tokens IS NULL').pluck().get(row.id) as number,
    ).toBeLessThanOrEqual(2);
    check.close();
  }, 400_000);

  it('two processes appending to one file at once lose nothing', async () => {
    const dir = tmp('gc-concurrent-');
    llm = await startFakeLlm(
      Array.from({ length: 40 }, (_, i) => ({ text: `answer ${i}` })),
      { title: 'Concurrent' },
    );
    const a = child('child-write.ts', [llm.url, dir, '20', '0']);
    const b = child('child-write.ts', [llm.url, dir, '20', '0']);
    expect(await a.exit).toBe(0);
    expect(await b.exit).toBe(0);
    expect(a.out()).not.toContain('ERROR');
    expect(b.out()).not.toContain('ERROR');
    const store = await SessionStore.open(dir);
    for (const c of [a, b]) {
      const id = /TURN_DONE 20 (\S+)/.exec(c.out())![1]!;
      const msgs = toTranscript(await store.messages(id));
      expect(msgs.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(
        Array.from({ length: 20 }, (_, k) => `turn ${k + 1} of ${c.proc.pid}`),
      );
      expect(msgs).toHaveLength(40);
      expect(store.get(id)!.message_count).toBe(40);
    }
    store.close();
  }, 120_000);
});

describe('one writer per session', () => {
  it('a live lease refuses a second writer; --fork branches the session into a new id', async () => {
    const dir = tmp('gc-lease-');
    llm = await startFakeLlm([{ text: 'one' }, { text: 'forked answer' }], { title: 'Lease' });
    const s = await session(testSettings(llm.url, dir), []);
    await collect(s.send('first'));
    await s.close();
    // another live process holds the lease
    const holder = spawn('sleep', ['30']);
    try {
      const store = await SessionStore.open(dir);
      store.db
        .prepare('INSERT INTO session_leases (session_id, pid, host, token, heartbeat_at) VALUES (?, ?, ?, ?, ?)')
        .run(s.id, holder.pid, (await import('node:os')).hostname(), 'other', Date.now());
      store.close();
      const err = await session(testSettings(llm.url, dir), [], { sessionId: s.id }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SessionInUseError);
      expect((err as Error).message).toBe(`session is in use by pid ${holder.pid}; use --fork to branch it`);
      expect((err as SessionInUseError).exitCode).toBe(1);

      const f = await session(testSettings(llm.url, dir), [], { sessionId: s.id, fork: true });
      expect(f.id).not.toBe(s.id);
      expect((await f.transcript()).map((e) => e.content)).toEqual(['first', 'one']);
      await collect(f.send('branch'));
      expect((await f.transcript()).map((e) => e.content)).toEqual(['first', 'one', 'branch', 'forked answer']);
      await f.close();
      const check = await SessionStore.open(dir);
      expect(toTranscript(await check.messages(s.id)).map((e) => e.content)).toEqual(['first', 'one']);
      expect(check.get(f.id)!.title).toBe(check.get(s.id)!.title);
      check.close();
    } finally {
      holder.kill('SIGKILL');
    }
    // the holder is gone: its lease is stale and the session resumes
    await new Promise((r) => holder.once('exit', r));
    const again = await session(testSettings(llm.url, dir), [], { sessionId: s.id });
    await again.close();
    // a live pid whose heartbeat stopped long ago (hung, or on another host) is stale too
    const store = await SessionStore.open(dir);
    store.db
      .prepare('INSERT OR REPLACE INTO session_leases (session_id, pid, host, token, heartbeat_at) VALUES (?, ?, ?, ?, ?)')
      .run(s.id, process.ppid, 'other-host', 'other', Date.now() - 10 * 60_000);
    store.close();
    const stale = await session(testSettings(llm.url, dir), [], { sessionId: s.id });
    await stale.close();
  });
});

/**
 * `sessions delete` against a session another process is running: refused with
 * the lease holder's pid, the running turn completes and is kept; once that run
 * has ended the delete removes every row the session owned. A lease held from
 * another host needs --force. Opening the file removes rows an older release
 * left behind for sessions that no longer exist.
 */
import { afterAll, expect, it } from 'vitest';
import { join } from 'node:path';
import { hostname } from 'node:os';
import Sqlite from 'better-sqlite3';
import { startFakeLlm } from '../fakes/llm/server.js';
import { SessionStore } from '../../src/sessions/store.js';
import { TreeStore } from '../../src/sessions/tree-store.js';
import { cliEnv, llmFlags, runCli, type CliResult } from '../e2e/oneshot-cli.js';

const e = cliEnv();
afterAll(() => e.cleanup());
const dataDir = join(e.home, 'data', 'gns3-copilot');
const dbFile = join(dataDir, 'sessions.db');

/** Rows in every table that refer to the session (or a thread of its tree). */
function rowsOf(id: string): Record<string, number> {
  const db = new Sqlite(dbFile, { readonly: true });
  try {
    const out: Record<string, number> = {};
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
    for (const t of tables) {
      const cols = (db.prepare(`PRAGMA table_info(${t})`).all() as { name: string }[]).map((c) => c.name);
      const col = ['session_id', 'thread_id', 'root_id', 'id'].find((c) => cols.includes(c));
      if (!col || t === 'checkpoint_blobs') continue;
      const n = db.prepare(`SELECT COUNT(*) FROM ${t} WHERE ${col} = ?`).pluck().get(id) as number;
      if (n > 0) out[t] = n;
    }
    return out;
  } finally {
    db.close();
  }
}

function waitForRow(check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const poll = () => (check() ? resolve() : setTimeout(poll, 50));
    poll();
  });
}

it('delete of a session in use is refused naming the pid; the run keeps its turn; after it, delete leaves no row', async () => {
  const llm = await startFakeLlm([{ text: 'seed' }], { title: 'Delete race' });
  try {
    const seed = await runCli(['-p', 'seed', '--json', ...llmFlags(llm.url)], e.env);
    expect(seed.code, seed.stderr).toBe(0);
    const id = (JSON.parse(seed.stdout) as { session_id: string }).session_id;

    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    const safety = setTimeout(release, 25_000);
    llm.push({ text: 'second answer', hold });
    let pid = 0;
    const running = runCli(['-p', 'second', '-r', id, '--json', ...llmFlags(llm.url)], e.env, {
      onSpawn: (c) => (pid = c.pid!),
    }).finally(release);
    // the run holds the lease once its request reaches the model
    await waitForRow(() => llm.requests.filter((r) => r.turn === 1).length > 0);
    const refused = await runCli(['sessions', 'delete', id, '--yes'], e.env);
    release();
    const done: CliResult = await running;
    clearTimeout(safety);
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toMatch(new RegExp(`^.*session is in use by pid ${pid}; end that process first`, 'm'));
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(done.code, done.stderr).toBe(0);
    const out = JSON.parse(done.stdout) as { stopped_reason: string; response: string };
    expect(out.stopped_reason).toBe('done');
    expect(out.response).toBe('second answer');
    const store = await SessionStore.open(dataDir);
    expect((await store.messages(id)).length).toBe(4);
    store.close();

    const deleted = await runCli(['sessions', 'delete', id, '--yes'], e.env);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(rowsOf(id)).toEqual({});
  } finally {
    await llm.close();
  }
}, 120_000);

it('a lease held from another host is refused without --force and taken over with it', async () => {
  const store = await SessionStore.open(dataDir);
  const row = store.create({ copilot_mode: 'lab_automation_assistant', agent_mode: 'flat' });
  store.db.exec(
    'CREATE TABLE IF NOT EXISTS session_leases (session_id TEXT PRIMARY KEY, pid INTEGER NOT NULL, host TEXT NOT NULL, token TEXT NOT NULL, heartbeat_at INTEGER NOT NULL)',
  );
  store.db
    .prepare('INSERT INTO session_leases (session_id, pid, host, token, heartbeat_at) VALUES (?, ?, ?, ?, ?)')
    .run(row.id, 4242, `${hostname()}-elsewhere`, 't', Date.now());
  store.close();
  const refused = await runCli(['sessions', 'delete', row.id, '--yes'], e.env);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/session is in use by pid 4242; end that process first \(--force when it is on another host and gone\)/);
  expect(rowsOf(row.id)).toMatchObject({ sessions: 1, session_leases: 1 });
  const forced = await runCli(['sessions', 'delete', row.id, '--yes', '--force'], e.env);
  expect(forced.code, forced.stderr).toBe(0);
  expect(rowsOf(row.id)).toEqual({});
});

it('opening sessions.db removes rows whose session is gone and keeps those of live sessions and their child agents', async () => {
  const store = await SessionStore.open(dataDir);
  const live = store.create({ copilot_mode: 'lab_automation_assistant', agent_mode: 'recursive' });
  const trees = new TreeStore(store.db);
  trees.create({ root_id: live.id, agent_mode: 'recursive' });
  trees.create({ root_id: 'gone-root', agent_mode: 'recursive' });
  const addNode = (id: string, root: string) =>
    store.db
      .prepare(
        "INSERT INTO agent_nodes (id, root_id, parent_id, depth, goal, brief, tools, status, created_at) VALUES (?, ?, ?, 1, 'g', 'b', '[]', 'done', 'now')",
      )
      .run(id, root, root);
  addNode('live-child', live.id);
  addNode('gone-child', 'gone-root');
  const msg = store.db.prepare(
    "INSERT INTO messages (session_id, seq, msg_id, role, content, tool_call_ids, tokens, created_at, extra) VALUES (?, 1, 'm', 'human', 'hi', NULL, NULL, 'now', NULL)",
  );
  for (const t of [live.id, 'live-child', 'gone-root', 'gone-child', 'deleted-session']) msg.run(t);
  store.db
    .prepare("INSERT INTO device_checkpoints (session_id, request_no, device, created_at) VALUES ('deleted-session', 1, 'R1', 'now')")
    .run();
  store.close();

  const reopened = await SessionStore.open(dataDir);
  const owners = reopened.db.prepare('SELECT session_id FROM messages ORDER BY session_id').pluck().all();
  expect(owners).toEqual([live.id, 'live-child'].sort());
  expect(reopened.db.prepare('SELECT COUNT(*) FROM device_checkpoints').pluck().get()).toBe(0);
  expect(reopened.db.prepare('SELECT id FROM agent_nodes').pluck().all()).toEqual(['live-child']);
  expect(reopened.db.prepare('SELECT root_id FROM agent_trees').pluck().all()).toEqual([live.id]);
  reopened.close();
});

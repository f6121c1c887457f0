/**
 * Every write transaction on sessions.db begins IMMEDIATE. A deferred one that reads first
 * fails at its first write with SQLITE_BUSY — "database is locked", without waiting — when
 * another process committed after its read: what one of a classroom's one-shot runs on one
 * sessions.db hit as its turn ended (pruneCheckpoints). Here the other process is a second
 * connection that writes exactly between the prune's read and its delete.
 */
import { afterAll, describe, expect, it } from 'vitest';
import Sqlite from 'better-sqlite3';
import { SessionStore } from '../../src/sessions/store.js';
import { tempDir } from '../agent/helpers.js';

const tmp = tempDir('gc-write-lock-');
afterAll(() => tmp.cleanup());

describe('sessions.db write transactions', () => {
  it('a prune holds the write lock from its first read: a writer in between waits, the prune never fails', async () => {
    const store = await SessionStore.open(tmp.dir);
    await store.saver.getTuple({ configurable: { thread_id: 't' } }); // the checkpoint tables
    const put = store.db.prepare(
      "INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, type, checkpoint, metadata) VALUES ('t', '', ?, 'json', x'00', x'00')",
    );
    for (let i = 1; i <= 6; i++) put.run(`cp-${i}`);

    const other = new Sqlite(store.file);
    other.pragma('busy_timeout = 0'); // answer at once instead of waiting for the prune
    const insertOther = other.prepare(
      "INSERT INTO sessions (id, copilot_mode, agent_mode, created_at, updated_at) VALUES ('other', 'lab_automation_assistant', 'legacy', 'now', 'now')",
    );
    let otherWrite: string | undefined;
    const prepare = store.db.prepare.bind(store.db);
    // eslint-disable-next-line no-restricted-syntax -- a hook between the prune's read and its first delete
    (store.db as unknown as { prepare: (sql: string) => unknown }).prepare = (sql: string) => {
      if (otherWrite === undefined && sql.startsWith('DELETE FROM checkpoints')) {
        try {
          insertOther.run();
          otherWrite = 'committed';
        } catch (err) {
          otherWrite = (err as { code?: string }).code;
        }
      }
      return prepare(sql);
    };
    try {
      expect(store.pruneCheckpoints('t')).toBe(2);
      expect(otherWrite).toBe('SQLITE_BUSY'); // the prune held the lock; the other writer waits its turn
      insertOther.run(); // and gets it once the prune has committed
    } finally {
      other.close();
      store.close();
    }
  });
});

/**
 * An older sessions.db gains the tree tables' new columns when a TreeStore opens it. Twelve
 * one-shot runs of a class opening one such file at once failed with "duplicate column
 * name: validation": two processes both saw the column missing, and the slower ALTER lost.
 * Here the other process is a second connection that adds the column exactly between the
 * store's look at the table and its ALTER.
 */
import { afterAll, describe, expect, it } from 'vitest';
import Sqlite from 'better-sqlite3';
import { TreeStore } from '../../src/sessions/tree-store.js';
import { TREE_SCHEMA } from '../../src/sessions/tree-schema.js';
import { tempDir } from '../agent/helpers.js';

const tmp = tempDir('gc-tree-columns-');
afterAll(() => tmp.cleanup());

/** The tree tables as a release before the added columns wrote them. */
function olderFile(file: string): void {
  const db = new Sqlite(file);
  db.pragma('journal_mode = WAL');
  db.exec(TREE_SCHEMA);
  db.close();
}

function columns(db: Sqlite.Database, table: string): string[] {
  return (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name);
}

describe('TreeStore on an older sessions.db', () => {
  it('adds a missing column under the write lock: a process adding it at the same moment waits, nobody fails', () => {
    const file = `${tmp.dir}/sessions.db`;
    olderFile(file);
    const db = new Sqlite(file);
    db.pragma('busy_timeout = 5000');
    const other = new Sqlite(file);
    other.pragma('busy_timeout = 0'); // answer at once instead of waiting for the store
    let otherAlter: string | undefined;
    const prepare = db.prepare.bind(db);
    // eslint-disable-next-line no-restricted-syntax -- a hook between the store's look at the table and its ALTER
    (db as unknown as { prepare: (sql: string) => unknown }).prepare = (sql: string) => {
      const stmt = prepare(sql);
      if (otherAlter === undefined && sql === 'PRAGMA table_info(agent_nodes)') {
        const rows = stmt.all();
        try {
          other.exec('ALTER TABLE agent_nodes ADD COLUMN validation TEXT');
          otherAlter = 'committed';
        } catch (err) {
          otherAlter = (err as { code?: string }).code;
        }
        return { all: () => rows };
      }
      return stmt;
    };

    expect(() => new TreeStore(db)).not.toThrow();
    expect(otherAlter).toBe('SQLITE_BUSY');
    expect(columns(db, 'agent_nodes')).toEqual(expect.arrayContaining(['validation', 'review']));
    expect(columns(db, 'agent_trees')).toContain('validation');
    other.close();
    db.close();
  });
});

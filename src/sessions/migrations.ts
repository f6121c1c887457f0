/**
 * Numbered one-way schema migrations for sessions.db. The version lives in
 * `schema_version`; a file without it was written by 0.1.0 (schema 1: the full
 * conversation inside every checkpoint). Each step reads what it needs first,
 * then applies in one IMMEDIATE transaction that re-checks the version, so two
 * processes opening an old file at once migrate it once, and a crash mid-way
 * leaves the old schema intact. A file from a newer release is refused.
 */
import type Database from 'better-sqlite3';
import type { BaseMessage } from '@langchain/core/messages';
import { CopilotError } from '../errors.js';
import { MESSAGES_SCHEMA, MessageLog } from './message-log.js';
import { CHECKPOINT_SCHEMA, DEVICE_CHECKPOINTS_PER_CALL } from './checkpoint-schema.js';
import { REQUEST_USAGE_SCHEMA } from './request-usage.js';
import { FAULT_SCHEMA } from './fault-schema.js';
import { SEEN_TOPOLOGY_SCHEMA } from './seen-topology.js';
import { NAMED_CHECKPOINT_SCHEMA } from './named-checkpoint-schema.js';
import { STATE_BASELINE_SCHEMA } from './state-baselines.js';

export const SCHEMA_VERSION = 9;

interface Migration<T> {
  to: number;
  /** async reads outside the write transaction */
  prepare(db: Database.Database): Promise<T>;
  apply(db: Database.Database, data: T): void;
}

const tableExists = (db: Database.Database, name: string) =>
  db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;

/** 1 → 2: the `messages` table, filled from each session's latest checkpoint. */
const messagesTable: Migration<{ thread: string; messages: BaseMessage[] }[]> = {
  to: 2,
  async prepare(db) {
    if (!tableExists(db, 'checkpoints')) return [];
    const { SqliteSaver } = await import('@langchain/langgraph-checkpoint-sqlite');
    const plain = new SqliteSaver(db);
    const threads = db.prepare("SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_ns = ''").pluck().all() as string[];
    const out: { thread: string; messages: BaseMessage[] }[] = [];
    for (const thread of threads) {
      const t = await plain.getTuple({ configurable: { thread_id: thread, checkpoint_ns: '' } });
      const msgs = (t?.checkpoint.channel_values as { messages?: unknown } | undefined)?.messages;
      if (Array.isArray(msgs) && msgs.length) out.push({ thread, messages: msgs as BaseMessage[] });
    }
    return out;
  },
  apply(db, data) {
    db.exec(MESSAGES_SCHEMA);
    const log = new MessageLog(db);
    for (const { thread, messages } of data) {
      log.delete(thread);
      log.append(thread, 0, messages);
    }
  },
};

/** 2 → 3: device and topology checkpoints and the rewinds (./checkpoint-schema.ts). */
const checkpointTables: Migration<void> = {
  to: 3,
  prepare: () => Promise.resolve(),
  apply(db) {
    db.exec(CHECKPOINT_SCHEMA);
  },
};

/**
 * 3 → 4: the model each request ran with (sessions list prices each at its own model). A
 * session's earlier usage becomes one row without a model: it is priced at the configured one.
 */
const requestModels: Migration<void> = {
  to: 4,
  prepare: () => Promise.resolve(),
  apply(db) {
    db.exec(REQUEST_USAGE_SCHEMA);
    db.exec(`INSERT INTO request_usage (session_id, model, llm_calls, input_tokens, output_tokens, at)
      SELECT id, NULL, llm_calls, input_tokens, output_tokens, updated_at FROM sessions WHERE llm_calls > 0 OR total_tokens > 0`);
  },
};

/** 4 → 5: the fault ledger of inject mode (./fault-schema.ts). */
const faultTables: Migration<void> = {
  to: 5,
  prepare: () => Promise.resolve(),
  apply(db) {
    db.exec(FAULT_SCHEMA);
  },
};

/** 5 → 6: the topology each session last saw, for the drift told at its next request (./seen-topology.ts). */
const seenTopology: Migration<void> = {
  to: 6,
  prepare: () => Promise.resolve(),
  apply(db) {
    db.exec(SEEN_TOPOLOGY_SCHEMA);
  },
};

/** 6 → 7: named lab checkpoints, per controller and project (./named-checkpoint-schema.ts). */
const namedCheckpoints: Migration<void> = {
  to: 7,
  prepare: () => Promise.resolve(),
  apply(db) {
    db.exec(NAMED_CHECKPOINT_SCHEMA);
  },
};

/** 7 → 8: the operational state each change's verification read before the change, for `diff --state` (./state-baselines.ts). */
const stateBaselines: Migration<void> = {
  to: 8,
  prepare: () => Promise.resolve(),
  apply(db) {
    db.exec(STATE_BASELINE_SCHEMA);
  },
};

/** 8 → 9: a device checkpoint per configuration call, not per request (./checkpoint-schema.ts). */
const checkpointPerCall: Migration<void> = {
  to: 9,
  prepare: () => Promise.resolve(),
  apply(db) {
    db.exec(DEVICE_CHECKPOINTS_PER_CALL);
  },
};

const MIGRATIONS: Migration<never>[] = [
  messagesTable as Migration<never>,
  checkpointTables as Migration<never>,
  requestModels as Migration<never>,
  faultTables as Migration<never>,
  seenTopology as Migration<never>,
  namedCheckpoints as Migration<never>,
  stateBaselines as Migration<never>,
  checkpointPerCall as Migration<never>,
];

export function schemaVersion(db: Database.Database): number {
  db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
  return (db.prepare('SELECT MAX(version) FROM schema_version').pluck().get() as number | null) ?? 1;
}

export async function migrate(db: Database.Database, file: string): Promise<void> {
  let v = schemaVersion(db);
  if (v > SCHEMA_VERSION)
    throw new CopilotError(
      `${file} uses sessions schema ${v}, newer than this gns3-copilot understands (${SCHEMA_VERSION}): upgrade it, or use another --data-dir`,
    );
  for (const m of MIGRATIONS) {
    if (v >= m.to) continue;
    const data = await m.prepare(db);
    db.transaction(() => {
      if (schemaVersion(db) >= m.to) return; // another process got there first
      m.apply(db, data);
      db.prepare('DELETE FROM schema_version').run();
      db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(m.to);
    }).immediate();
    v = schemaVersion(db);
  }
}

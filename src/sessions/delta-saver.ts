/**
 * A SqliteSaver whose checkpoints do not carry the conversation: new messages go
 * to the append-only `messages` table in the same transaction as the checkpoint
 * that adds them, and the checkpoint keeps only a reference (how many messages of
 * the log it covers). Reading a checkpoint takes the messages from an in-memory
 * list kept between turns, loading from the table only what this process has not
 * seen (a resume, or turns another process appended). A state whose messages are
 * not an extension of the log (never produced by this graph) is stored whole, as
 * the plain saver does, so nothing is ever lost.
 */
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import type { RunnableConfig } from '@langchain/core/runnables';
import type { BaseMessage } from '@langchain/core/messages';
import type { Checkpoint, CheckpointListOptions, CheckpointMetadata, CheckpointTuple } from '@langchain/langgraph-checkpoint';
import { CopilotError } from '../errors.js';
import { MessageLog } from './message-log.js';

const REF = '__copilot_messages';
interface MessagesRef {
  [REF]: number;
}
const isRef = (v: unknown): v is MessagesRef =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as MessagesRef)[REF] === 'number';

/** Token counts per message object: the log stores them so a restart does not re-count. */
export interface TokenMemo {
  known(m: BaseMessage): number | undefined;
  prime(m: BaseMessage, n: number): void;
}

interface ThreadLog {
  /** messages 1..count are in the table */
  count: number;
  lastId: string | null;
  /** all of them, in order, when this process has them */
  messages?: BaseMessage[];
  /** seq numbers (1-based) written without a token count */
  uncounted: number[];
}

export class DeltaSaver extends SqliteSaver {
  readonly log: MessageLog;
  tokens?: TokenMemo;
  private threads = new Map<string, ThreadLog>();
  private insertCheckpoint?: ReturnType<SqliteSaver['db']['prepare']>;

  constructor(db: ConstructorParameters<typeof SqliteSaver>[0]) {
    super(db);
    this.log = new MessageLog(db);
  }

  private thread(id: string): ThreadLog {
    let t = this.threads.get(id);
    if (!t) this.threads.set(id, (t = { ...this.log.head(id), uncounted: [] }));
    return t;
  }

  /** The first n messages of the log, from memory where possible. */
  private messagesUpTo(id: string, n: number): BaseMessage[] {
    const t = this.thread(id);
    if (t.count < n) Object.assign(t, this.log.head(id));
    if (!t.messages || t.messages.length < n) {
      const have = t.messages ?? [];
      const more = this.log.read(id, have.length, n);
      if (this.tokens) more.messages.forEach((m, i) => more.tokens[i] != null && this.tokens!.prime(m, more.tokens[i]));
      t.messages = [...have, ...more.messages];
      if (t.messages.length < n)
        throw new CopilotError(
          `session ${id}: the messages table holds ${t.messages.length} of the ${n} messages its checkpoint refers to`,
        );
    }
    return t.messages.length === n ? t.messages : t.messages.slice(0, n);
  }

  private resolve(tuple: CheckpointTuple | undefined): CheckpointTuple | undefined {
    const values = tuple?.checkpoint.channel_values;
    const thread = tuple?.config.configurable?.thread_id as string | undefined;
    if (values && thread && isRef(values.messages)) values.messages = this.messagesUpTo(thread, values.messages[REF]);
    return tuple;
  }

  override async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    return this.resolve(await super.getTuple(config));
  }

  override async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    for await (const t of super.list(config, options)) yield this.resolve(t)!;
  }

  override async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata): Promise<RunnableConfig> {
    const thread_id = config.configurable?.thread_id as string | undefined;
    const checkpoint_ns = (config.configurable?.checkpoint_ns as string | undefined) ?? '';
    const msgs = checkpoint.channel_values.messages;
    if (!thread_id || checkpoint_ns !== '' || !Array.isArray(msgs)) return super.put(config, checkpoint, metadata);
    const messages = msgs as BaseMessage[];
    const t = this.thread(thread_id);
    const extends_ = messages.length >= t.count && (t.count === 0 || (messages[t.count - 1]!.id ?? null) === t.lastId);
    if (!extends_) return super.put(config, checkpoint, metadata);

    this.setup();
    const fresh = messages.slice(t.count);
    const slim: Checkpoint = { ...checkpoint, channel_values: { ...checkpoint.channel_values, messages: { [REF]: messages.length } } };
    const [[type1, cp], [type2, md]] = await Promise.all([this.serde.dumpsTyped(slim), this.serde.dumpsTyped(metadata)]);
    if (type1 !== type2) throw new Error('Failed to serialize checkpoint and metadata to the same type.');
    const after = t.count;
    try {
      this.db
        .transaction(() => {
          this.log.append(thread_id, after, fresh, (m) => this.tokens?.known(m));
          (this.insertCheckpoint ??= this.db.prepare(
            'INSERT OR REPLACE INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)',
          )).run(
            thread_id,
            checkpoint_ns,
            checkpoint.id,
            (config.configurable?.checkpoint_id as string | undefined) ?? null,
            type1,
            cp,
            md,
          );
        })
        .immediate();
    } catch (err) {
      this.threads.delete(thread_id);
      if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
        throw new CopilotError(
          `session ${thread_id} was written by another process meanwhile; resume it again (or use --fork)`,
          undefined,
          { cause: err },
        );
      throw err;
    }
    fresh.forEach((m, i) => {
      if (this.tokens?.known(m) === undefined) t.uncounted.push(after + i + 1);
    });
    t.count = messages.length;
    t.lastId = messages.at(-1)?.id ?? null;
    t.messages = messages;
    return { configurable: { thread_id, checkpoint_ns, checkpoint_id: checkpoint.id } };
  }

  /** Stores the token counts learnt since the messages were written (one small update per message, once). */
  flushTokenCounts(threadId: string): void {
    const t = this.threads.get(threadId);
    if (!t?.messages || !this.tokens || t.uncounted.length === 0) return;
    const counts: { seq: number; tokens: number }[] = [];
    const left: number[] = [];
    for (const seq of t.uncounted) {
      const m = t.messages[seq - 1];
      const n = m ? this.tokens.known(m) : undefined;
      if (n === undefined) left.push(seq);
      else counts.push({ seq, tokens: n });
    }
    this.log.setTokens(threadId, counts);
    t.uncounted = left;
  }

  override async deleteThread(threadId: string): Promise<void> {
    await super.deleteThread(threadId);
    this.log.delete(threadId);
    this.threads.delete(threadId);
  }

  /** Forget what this process holds for a session (another process may have written it). */
  forget(threadId: string): void {
    this.threads.delete(threadId);
  }
}

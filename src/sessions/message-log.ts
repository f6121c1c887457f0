/**
 * The append-only `messages` table: every conversation message stored once, in
 * order (session_id, seq), with its role, text, tool-call ids and token count.
 * `sessions show/export`, resume and the delta checkpointer read it directly.
 */
import type Database from 'better-sqlite3';
import { AIMessage, ChatMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { storedVerification, toTranscript, type TranscriptEntry } from './transcript.js';
import { redact } from '../security/redact.js';
import { PROTOCOL_NAME } from './message-text.js';

export const MESSAGES_SCHEMA = `
CREATE TABLE IF NOT EXISTS messages (
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  msg_id TEXT,
  role TEXT NOT NULL,
  content TEXT NOT NULL,
  tool_call_ids TEXT,
  tokens INTEGER,
  created_at TEXT NOT NULL,
  extra TEXT,
  PRIMARY KEY (session_id, seq)
);
`;

export interface MessageRow {
  session_id: string;
  seq: number;
  msg_id: string | null;
  role: string;
  content: string;
  tool_call_ids: string | null;
  tokens: number | null;
  created_at: string;
  extra: string | null;
}

const ROLE_OF: Record<string, string> = { human: 'user', ai: 'assistant', tool: 'tool', system: 'system' };

interface Extra {
  content_json?: true;
  type?: string;
  name?: string;
  tool_calls?: { id?: string; name: string; args: unknown }[];
  invalid_tool_calls?: unknown[];
  usage_metadata?: unknown;
  additional_kwargs?: Record<string, unknown>;
  status?: string;
  tool_call_id?: string;
  role?: string;
}

const nonEmpty = (o: Record<string, unknown> | undefined) => (o && Object.keys(o).length > 0 ? o : undefined);

/** One message as a row (without session_id/seq/created_at). */
export function encodeMessage(m: BaseMessage): Pick<MessageRow, 'msg_id' | 'role' | 'content' | 'tool_call_ids' | 'extra'> {
  const type = m.getType();
  const extra: Extra = {};
  let content: string;
  if (typeof m.content === 'string') content = m.content;
  else {
    content = JSON.stringify(m.content);
    extra.content_json = true;
  }
  if (m.name) extra.name = m.name;
  const kw = nonEmpty(m.additional_kwargs);
  if (kw) extra.additional_kwargs = kw;
  let ids: string[] | undefined;
  if (type === 'ai') {
    const ai = m as AIMessage;
    if (ai.tool_calls?.length) {
      extra.tool_calls = ai.tool_calls.map((c) => ({ ...(c.id ? { id: c.id } : {}), name: c.name, args: c.args }));
      ids = ai.tool_calls.map((c) => c.id ?? '');
    }
    if (ai.invalid_tool_calls?.length) extra.invalid_tool_calls = ai.invalid_tool_calls;
    if (ai.usage_metadata) extra.usage_metadata = ai.usage_metadata;
  } else if (type === 'tool') {
    const t = m as ToolMessage;
    extra.tool_call_id = t.tool_call_id;
    if (t.status) extra.status = t.status;
    ids = [t.tool_call_id];
  } else if (type !== 'human' && type !== 'system') {
    extra.type = type;
    const role = (m as { role?: string }).role;
    if (role) extra.role = role;
  }
  return {
    msg_id: m.id ?? null,
    role: ROLE_OF[type] ?? type,
    content,
    tool_call_ids: ids ? JSON.stringify(ids) : null,
    extra: Object.keys(extra).length ? JSON.stringify(extra) : null,
  };
}

export function decodeMessage(r: Pick<MessageRow, 'msg_id' | 'role' | 'content' | 'extra'>): BaseMessage {
  const x: Extra = r.extra ? (JSON.parse(r.extra) as Extra) : {};
  const content = x.content_json ? (JSON.parse(r.content) as never) : r.content;
  const common = {
    content,
    ...(r.msg_id ? { id: r.msg_id } : {}),
    ...(x.name ? { name: x.name } : {}),
    ...(x.additional_kwargs ? { additional_kwargs: x.additional_kwargs } : {}),
  };
  switch (r.role) {
    case 'user':
      return new HumanMessage(common);
    case 'system':
      return new SystemMessage(common);
    case 'assistant':
      return new AIMessage({
        ...common,
        tool_calls: (x.tool_calls ?? []).map((c) => ({ ...c, args: c.args as Record<string, unknown>, type: 'tool_call' as const })),
        ...(x.invalid_tool_calls ? { invalid_tool_calls: x.invalid_tool_calls as never } : {}),
        ...(x.usage_metadata ? { usage_metadata: x.usage_metadata as never } : {}),
      });
    case 'tool':
      return new ToolMessage({
        ...common,
        tool_call_id: x.tool_call_id ?? '',
        ...(x.status ? { status: x.status as 'success' | 'error' } : {}),
      });
    default:
      return new ChatMessage({ ...common, role: x.role ?? r.role });
  }
}

/** What toTranscript() makes of the decoded message, straight from the row (no message objects). */
export function transcriptEntry(r: Pick<MessageRow, 'msg_id' | 'role' | 'content' | 'extra'>): TranscriptEntry {
  const x: Extra = r.extra ? (JSON.parse(r.extra) as Extra) : {};
  if (x.content_json || x.type) return toTranscript([decodeMessage(r)])[0]!;
  if (r.role === 'user' && x.name !== PROTOCOL_NAME) return { role: 'user', content: r.content };
  if (r.role === 'user') return { role: 'system', content: r.content, name: PROTOCOL_NAME };
  if (r.role === 'assistant') {
    const calls = (x.tool_calls ?? []).map((c) => ({ id: c.id ?? '', name: c.name, args: c.args }));
    return { role: 'assistant', content: r.content, ...(calls.length ? { tool_calls: calls } : {}) };
  }
  if (r.role === 'tool') {
    const status = (x.additional_kwargs?.copilot_status as string | undefined) ?? x.status ?? 'success';
    const display = x.additional_kwargs?.copilot_display;
    return {
      role: 'tool',
      content: r.content,
      tool_call_id: x.tool_call_id ?? '',
      ...(x.name ? { name: x.name } : {}),
      status,
      ...(typeof display === 'string' ? { display } : {}),
      ...storedVerification(x.additional_kwargs),
    };
  }
  return { role: 'system', content: r.content };
}

/** Statements over the messages table, prepared once per connection. */
export class MessageLog {
  private readonly insertStmt: Database.Statement;
  private readonly headStmt: Database.Statement;
  private readonly rangeStmt: Database.Statement;
  private readonly tokensStmt: Database.Statement;

  constructor(readonly db: Database.Database) {
    db.exec(MESSAGES_SCHEMA);
    this.insertStmt = db.prepare(
      'INSERT INTO messages (session_id, seq, msg_id, role, content, tool_call_ids, tokens, created_at, extra) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.headStmt = db.prepare('SELECT seq, msg_id FROM messages WHERE session_id = ? ORDER BY seq DESC LIMIT 1');
    this.rangeStmt = db.prepare(
      'SELECT seq, msg_id, role, content, tokens, extra FROM messages WHERE session_id = ? AND seq > ? AND seq <= ? ORDER BY seq',
    );
    this.tokensStmt = db.prepare('UPDATE messages SET tokens = ? WHERE session_id = ? AND seq = ? AND tokens IS NULL');
  }

  /** Number of stored messages and the id of the last one (seq runs 1..count). */
  head(sessionId: string): { count: number; lastId: string | null } {
    const r = this.headStmt.get(sessionId) as { seq: number; msg_id: string | null } | undefined;
    return { count: r?.seq ?? 0, lastId: r?.msg_id ?? null };
  }

  /** Appends messages after seq `after` (call inside a transaction with the checkpoint that adds them). */
  append(sessionId: string, after: number, messages: BaseMessage[], tokens?: (m: BaseMessage) => number | undefined): void {
    const now = new Date().toISOString();
    messages.forEach((m, i) => {
      const e = encodeMessage(m);
      // The one place message text reaches the disk: known secrets never do.
      this.insertStmt.run(
        sessionId,
        after + i + 1,
        e.msg_id,
        e.role,
        redact(e.content),
        e.tool_call_ids,
        tokens?.(m) ?? null,
        now,
        e.extra && redact(e.extra),
      );
    });
  }

  /** Rows seq in (after, upto], decoded, with their stored token counts. */
  read(sessionId: string, after = 0, upto = Number.MAX_SAFE_INTEGER): { messages: BaseMessage[]; tokens: (number | null)[] } {
    const rows = this.rangeStmt.all(sessionId, after, upto) as (MessageRow & { tokens: number | null })[];
    return { messages: rows.map(decodeMessage), tokens: rows.map((r) => r.tokens) };
  }

  /** The transcript for show/export/resume, without building message objects. */
  transcript(sessionId: string): TranscriptEntry[] {
    return (this.rangeStmt.all(sessionId, 0, Number.MAX_SAFE_INTEGER) as MessageRow[]).map(transcriptEntry);
  }

  /** Fills in token counts that were not known when the messages were written. */
  setTokens(sessionId: string, counts: { seq: number; tokens: number }[]): void {
    if (counts.length === 0) return;
    this.db
      .transaction(() => {
        for (const c of counts) this.tokensStmt.run(c.tokens, sessionId, c.seq);
      })
      .immediate();
  }

  delete(sessionId: string): void {
    this.db.prepare('DELETE FROM messages WHERE session_id = ?').run(sessionId);
  }
}

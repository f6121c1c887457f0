/** Session transcripts for `sessions show` and `sessions export` (Markdown or JSON). */
import type { BaseMessage, ToolMessage } from '@langchain/core/messages';
import type { SessionRow } from './types.js';
import { verificationLine, type Verification } from '../core/verification.js';
import { messageText } from './message-text.js';
import { toolResultMarkdown } from './tool-result-md.js';
import { PROTOCOL_NAME } from './message-text.js';

export interface TranscriptEntry {
  role: 'user' | 'assistant' | 'tool' | 'system';
  content: string;
  tool_calls?: { id: string; name: string; args: unknown }[];
  tool_call_id?: string;
  name?: string;
  status?: string;
  /** the tool's one-line summary, as the TUI showed it */
  display?: string;
  /** the automatic verification of a configuration change, stored with the call's result */
  verification?: Verification;
}

/** The stored verification of a tool message's extras (absent: none ran, or not a verification). */
export function storedVerification(kw: Record<string, unknown> | undefined): { verification?: Verification } {
  const v = kw?.copilot_verification as Verification | undefined;
  return v && typeof v === 'object' && typeof v.status === 'string' ? { verification: v } : {};
}

export function toTranscript(messages: BaseMessage[]): TranscriptEntry[] {
  return messages.map((m) => {
    const type = m.getType();
    const content = typeof m.content === 'string' ? m.content : messageText(m);
    // a note of the task protocol (a held answer, the root Validator's findings) is not the user's
    if (type === 'human') return m.name === PROTOCOL_NAME ? { role: 'system', content, name: PROTOCOL_NAME } : { role: 'user', content };
    if (type === 'ai') {
      const calls = ((m as { tool_calls?: { id?: string; name: string; args: unknown }[] }).tool_calls ?? []).map((c) => ({
        id: c.id ?? '',
        name: c.name,
        args: c.args,
      }));
      return { role: 'assistant', content, ...(calls.length ? { tool_calls: calls } : {}) };
    }
    if (type === 'tool') {
      const t = m as ToolMessage;
      const kw = t.additional_kwargs as { copilot_status?: string; copilot_display?: unknown; copilot_verification?: unknown } | undefined;
      return {
        role: 'tool',
        content,
        tool_call_id: t.tool_call_id,
        ...(t.name ? { name: t.name } : {}),
        status: kw?.copilot_status ?? t.status ?? 'success',
        ...(typeof kw?.copilot_display === 'string' ? { display: kw.copilot_display } : {}),
        ...storedVerification(kw),
      };
    }
    return { role: 'system', content };
  });
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}… (${s.length - n} more characters)` : s);

/** A call's verification under its result: the one line, then every regression. */
function verificationMarkdown(v: Verification): string[] {
  const list = v.regressions.map((r) => `- regression: ${r.device} ${r.kind} ${r.what}: ${r.before} → ${r.after}`);
  return [`Verification: ${verificationLine(v)}${v.report_only ? ' (reported only: inject mode)' : ''}`, ...list, ''];
}

export function transcriptMarkdown(row: SessionRow, entries: TranscriptEntry[], opts: { clipToolOutput?: number } = {}): string {
  const lines = [
    `# ${row.title ?? 'Untitled session'}`,
    '',
    `- session: \`${row.id}\``,
    `- project: ${row.project_name ?? '—'}${row.project_id ? ` (\`${row.project_id}\`)` : ''}`,
    `- mode: ${row.copilot_mode} · agent mode: ${row.agent_mode}`,
    `- created: ${row.created_at} · updated: ${row.updated_at}`,
    `- messages: ${row.message_count} · LLM calls: ${row.llm_calls} · tokens: ${row.input_tokens} in / ${row.output_tokens} out`,
    '',
  ];
  for (const e of entries) {
    if (e.role === 'user') lines.push('## User', '', e.content, '');
    else if (e.role === 'system' && e.name === PROTOCOL_NAME) lines.push('### Task protocol', '', e.content, '');
    else if (e.role === 'assistant') {
      lines.push('## Assistant', '');
      if (e.content) lines.push(e.content, '');
      for (const c of e.tool_calls ?? []) lines.push(`- tool call \`${c.name}\` \`${JSON.stringify(c.args)}\``);
      if (e.tool_calls?.length) lines.push('');
    } else if (e.role === 'tool') {
      const clipped = (s: string) => (opts.clipToolOutput ? clip(s, opts.clipToolOutput) : s);
      lines.push(
        `### Tool result: ${e.name ?? e.tool_call_id} (${e.status})${e.display ? ` — ${e.display}` : ''}`,
        '',
        ...toolResultMarkdown(e.content, clipped),
        '',
        ...(e.verification ? verificationMarkdown(e.verification) : []),
      );
    }
  }
  return lines.join('\n');
}

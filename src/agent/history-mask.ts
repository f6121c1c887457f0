/**
 * Observation masking (docs/agent.md, Context): what an LLM call is sent of OLD tool results.
 * A request re-sends its whole history on every call, and most of that history is the devices'
 * own output the model read turns ago. Tool results answering a model turn older than the last
 * `history_full_turns` turns, when longer than MASK_MIN_TOKENS, are sent as a short stub — the
 * tool, the devices and commands (or the first lines), and the ref that holds the result whole,
 * which the model pages with `read_context_ref`. Only what is sent changes: the stored history
 * (checkpoints, sessions.db) keeps every result whole, and the summarizer is given it whole.
 */
import { ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { TokenCounter } from './tokens.js';

/** Results at most this long (o200k/cl100k tokens) are sent whole: a stub would save next to nothing. */
export const MASK_MIN_TOKENS = 150;
/** Room for the first lines of a result that is not a device batch. */
const HEAD_TOKENS = 40;
/**
 * Results never masked: the task tree's reports (`agent`, `review_task`) are already the child's
 * summary, and the parent addresses its children by the agent_id they carry (review_task,
 * continue_from) — a stub would hide exactly that.
 */
const KEEP_WHOLE = new Set(['agent', 'review_task']);
/** Device/command lines listed in a device batch's stub; the rest is counted. */
const MAX_LISTED = 8;

export interface MaskOptions {
  /** the last model turns whose tool results are sent whole; 0 = no masking */
  fullTurns: number;
  counter: TokenCounter;
  /** stores a result whole (idempotent for the same content) and returns the ref id the model reads it by */
  store(ref: { id: string; source: string; content: string }): string;
  /** false when `store` stores nothing (--estimate): its stubs must not be reused by a real call */
  cache?: boolean;
}

/** The history as an LLM call is sent it: old long tool results replaced by stubs, one for one (indices keep). */
export function maskOldResults(history: BaseMessage[], o: MaskOptions): BaseMessage[] {
  if (o.fullTurns <= 0) return history;
  const cutoff = turnStart(history, o.fullTurns);
  if (cutoff <= 0) return history;
  let out: BaseMessage[] | undefined;
  for (let i = 0; i < cutoff; i++) {
    const m = history[i]!;
    if (m.getType() !== 'tool' || typeof m.content !== 'string') continue;
    const tool = m as ToolMessage;
    if (KEEP_WHOLE.has(tool.name ?? '') || o.counter.message(tool) <= MASK_MIN_TOKENS) continue;
    (out ??= [...history])[i] = stubMessage(tool, o);
  }
  return out ?? history;
}

/** Index of the `n`th model message from the end (the oldest turn sent whole); 0 when there are not that many. */
function turnStart(history: BaseMessage[], n: number): number {
  let seen = 0;
  for (let i = history.length - 1; i >= 0; i--) if (history[i]!.getType() === 'ai' && ++seen === n) return i;
  return 0;
}

/** Stubs by original message: a history prepared call after call stores and renders each old result once. */
const stubs = new WeakMap<BaseMessage, ToolMessage>();

function stubMessage(m: ToolMessage, o: MaskOptions): ToolMessage {
  const cache = o.cache ?? true;
  const known = cache ? stubs.get(m) : undefined;
  if (known) return known;
  const content = m.content as string;
  const name = m.name ?? 'tool';
  const ref = o.store({ id: m.tool_call_id, source: name, content });
  const tokens = o.counter.message(m);
  const body = deviceLines(content) ?? headLines(content, o.counter);
  const stub = new ToolMessage({
    content: `[older ${name} result, masked (${tokens} tokens); whole: read_context_ref {"ref_id":${JSON.stringify(ref)}}]${body ? `\n${body}` : ''}`,
    tool_call_id: m.tool_call_id,
    name,
    ...(m.status ? { status: m.status } : {}),
  });
  if (cache) stubs.set(m, stub);
  return stub;
}

interface Batch {
  status?: string;
  devices?: { device_name?: string; status?: string; results?: { command?: string; status?: string; output?: unknown }[] }[];
}

/** A device batch as one line per device and command (status when not success, output lines); undefined for other results. */
function deviceLines(text: string): string | undefined {
  let batch: Batch;
  try {
    batch = JSON.parse(text) as Batch;
  } catch {
    return undefined;
  }
  if (!batch || !Array.isArray(batch.devices)) return undefined;
  const lines = batch.devices.flatMap((d) =>
    (d.results ?? []).map((r) => {
      const out = typeof r.output === 'string' ? r.output : '';
      const status = r.status && r.status !== 'success' ? ` ${r.status}` : '';
      return `${d.device_name ?? '?'} \`${r.command ?? ''}\`${status}: ${out ? out.split('\n').length : 0} lines`;
    }),
  );
  const more = lines.length > MAX_LISTED ? [`… ${lines.length - MAX_LISTED} more`] : [];
  const head = batch.status && batch.status !== 'success' ? [`status ${batch.status}`] : [];
  return [...head, ...lines.slice(0, MAX_LISTED), ...more].join('\n');
}

/** The whole lines of the text's start within HEAD_TOKENS (a one-line text: its first characters). */
function headLines(text: string, counter: TokenCounter): string {
  const units = text.includes('\n') ? text.split(/(?<=\n)/) : [text.slice(0, 160)];
  let used = 0;
  let out = '';
  for (const u of units) {
    const c = counter.text(u);
    if (used + c > HEAD_TOKENS) break;
    used += c;
    out += u;
  }
  if (!out) out = text.slice(0, 120);
  return out.length < text.length ? `${out.trimEnd()}\n…` : out;
}

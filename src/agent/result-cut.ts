/**
 * One tool result enters the history at most `tool_result_tokens` tokens (the session's
 * counter). A longer result is stored whole in sessions.db as a context ref (the task tree's
 * `context_refs`, granted to the agent that ran the call) and the history gets its head and
 * tail with a note naming the ref, which the model pages with `read_context_ref`. A device
 * batch is cut per command output, so one chatty `show` never hides the other devices.
 */
import type { ToolResult } from '../tools/types.js';
import type { TokenCounter } from './tokens.js';

/** Where cut results are kept whole; returns the ref id the model reads them by. */
export interface ResultStore {
  /** tokens one result may carry into the history */
  limit: number;
  counter: TokenCounter;
  store(holder: string | undefined, ref: { id: string; source: string; content: string }): string;
}

/** How far the characters caps rise when results are stored whole: past this a result is cut before storing. */
export const STORED_RESULT_CHARS = 8_000_000;

/** Tokens kept for the note and the JSON around a cut output. */
const NOTE_TOKENS = 90;
/** Below this share a device output is left whole: the cut would save nothing. */
const MIN_SHARE = 120;

/** The result as it enters the history: untouched when within the limit, else cut with its whole stored. */
export async function cutResult(
  r: ToolResult,
  call: { id: string; name: string },
  holder: string | undefined,
  s: ResultStore,
): Promise<ToolResult> {
  await s.counter.ready();
  if (s.counter.text(r.output) <= s.limit) return r;
  // escaping the cut outputs into JSON adds tokens the shares did not see: tighter shares until it fits
  for (const fill of [0.9, 0.75, 0.6]) {
    const batch = cutBatch(r.output, call, holder, s, Math.floor(s.limit * fill));
    if (batch === undefined) break;
    if (s.counter.text(batch) <= s.limit) return { ...r, output: batch };
  }
  const ref = s.store(holder, { id: call.id, source: call.name, content: r.output });
  return { ...r, output: cutText(r.output, s.limit, ref, s.counter) };
}

interface CommandResult {
  output?: unknown;
}
interface DeviceResults {
  devices?: { device_name?: string; results?: CommandResult[] }[];
}

/** A device batch (`{devices:[{results:[{output}]}]}`) with each long output cut to its share; undefined for other results. */
function cutBatch(
  text: string,
  call: { id: string; name: string },
  holder: string | undefined,
  s: ResultStore,
  budget: number,
): string | undefined {
  let parsed: DeviceResults;
  try {
    parsed = JSON.parse(text) as DeviceResults;
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed.devices)) return undefined;
  const outputs = parsed.devices.flatMap((d) =>
    (d.results ?? []).filter((c) => typeof c.output === 'string').map((c) => ({ c, device: d.device_name ?? '?' })),
  );
  if (outputs.length === 0) return undefined;
  const sizes = outputs.map((o) => s.counter.text(o.c.output as string));
  // the batch without its outputs: what every share leaves room for
  const frame = s.counter.text(JSON.stringify(parsed, (k, v: unknown) => (k === 'output' ? '' : v)));
  const shares = waterFill(sizes, budget - frame - NOTE_TOKENS * outputs.length);
  if (shares.some((sh, i) => sh < MIN_SHARE && sh < sizes[i]!)) return undefined;
  outputs.forEach((o, i) => {
    if (sizes[i]! <= shares[i]!) return;
    const whole = o.c.output as string;
    const ref = s.store(holder, { id: `${call.id}.${i + 1}`, source: `${call.name} ${o.device}`, content: whole });
    o.c.output = cutText(whole, shares[i]! + NOTE_TOKENS, ref, s.counter);
  });
  return JSON.stringify(parsed);
}

/** Each size's share of `budget`: small ones whole, the rest split evenly among the large. */
function waterFill(sizes: number[], budget: number): number[] {
  const order = sizes.map((n, i) => ({ n, i })).sort((a, b) => a.n - b.n);
  const out = new Array<number>(sizes.length);
  let left = budget;
  order.forEach(({ n, i }, k) => {
    const even = Math.floor(left / (order.length - k));
    out[i] = Math.min(n, even);
    left -= out[i];
  });
  return out;
}

/**
 * `text` within `limit` tokens: whole lines of its head (about 60%) and tail, and between them
 * a note with the omitted lines and characters and the ref that holds the whole. A text without
 * line breaks (one JSON line) is cut in pieces of 200 characters instead.
 */
export function cutText(text: string, limit: number, ref: string, counter: TokenCounter): string {
  const units = text.includes('\n') ? text.split(/(?<=\n)/) : (text.match(/[\s\S]{1,200}/g) ?? []);
  const cost = (u: string) => counter.text(u);
  const room = Math.max(0, limit - NOTE_TOKENS);
  let head = take(units, Math.floor(room * 0.6), cost);
  let tail = take([...units].reverse(), room - head.tokens, cost);
  for (;;) {
    const out = render(units, head.n, tail.n, text, ref);
    if (counter.text(out) <= limit || head.n + tail.n === 0) return out;
    // token counts of pieces do not quite add up: give back one unit from the longer side
    if (head.n >= tail.n) head = { n: head.n - 1, tokens: 0 };
    else tail = { n: tail.n - 1, tokens: 0 };
  }
}

function take(units: string[], budget: number, cost: (u: string) => number): { n: number; tokens: number } {
  let tokens = 0;
  let n = 0;
  for (const u of units) {
    const c = cost(u);
    if (tokens + c > budget) break;
    tokens += c;
    n++;
  }
  return { n, tokens };
}

function render(units: string[], headN: number, tailN: number, text: string, ref: string): string {
  const head = units.slice(0, headN).join('');
  const tail = units.slice(units.length - tailN).join('');
  const from = head.length;
  const to = text.length - tail.length;
  const lines = text.includes('\n') ? lineNote(text, head, tail) : '';
  const note = `…[cut to fit tool_result_tokens: ${lines}characters ${from}–${to} of ${text.length} omitted; whole result stored: read_context_ref {"ref_id":${JSON.stringify(ref)},${lines ? `"line":${countLines(head) + 1}` : `"offset":${from}`}}]…`;
  return `${head}${head.endsWith('\n') || !head ? '' : '\n'}${note}\n${tail}`;
}

function lineNote(text: string, head: string, tail: string): string {
  const total = countLines(text);
  const first = countLines(head) + 1;
  const last = total - countLines(tail);
  return `lines ${first}–${last} of ${total}, `;
}

/** Lines in a text, a last line without its newline counted. */
function countLines(s: string): number {
  if (!s) return 0;
  let n = 0;
  for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) n++;
  return s.endsWith('\n') ? n : n + 1;
}

/** Room for the page's JSON around its content (ref id, source, size, offsets). */
const PAGE_FRAME_TOKENS = 60;

/** A `read_context_ref` page within `limit` tokens: whole lines of its start (characters when one line is longer). */
export function pageFitter(counter: TokenCounter, limit: number): (s: string) => string {
  const room = Math.max(1, limit - PAGE_FRAME_TOKENS);
  return (s) => {
    if (counter.text(s) <= room) return s;
    const units = s.includes('\n') ? s.split(/(?<=\n)/) : (s.match(/[\s\S]{1,200}/g) ?? []);
    const n = take(units, room, (u) => counter.text(u)).n;
    // at least something, so paging always moves on
    return n > 0 ? units.slice(0, n).join('') : s.slice(0, room);
  };
}

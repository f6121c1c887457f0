/**
 * Token counting with js-tiktoken's lite build and bundled ranks (no downloads at
 * run time). Building an encoder costs ~300 ms, so each encoding is built lazily,
 * once per process, and message counts are cached per message.
 */
import type { BaseMessage } from '@langchain/core/messages';

export type EncodingName = 'cl100k_base' | 'o200k_base';

interface Encoder {
  encode(text: string): number[];
}

const encoders = new Map<EncodingName, Promise<Encoder>>();

export function getEncoder(name: EncodingName): Promise<Encoder> {
  let p = encoders.get(name);
  if (!p) {
    p = (async () => {
      const { Tiktoken } = await import('js-tiktoken/lite');
      const ranks =
        name === 'o200k_base'
          ? (await import('js-tiktoken/ranks/o200k_base')).default
          : (await import('js-tiktoken/ranks/cl100k_base')).default;
      return new Tiktoken(ranks);
    })();
    encoders.set(name, p);
  }
  return p;
}

/** Per-message overhead of the chat format (role, separators), as OpenAI documents it. */
const MESSAGE_OVERHEAD = 4;

export function messageText(m: BaseMessage): string {
  const c = m.content as unknown;
  let text = '';
  if (typeof c === 'string') text = c;
  else if (Array.isArray(c))
    text = c.map((p: unknown) => (typeof p === 'string' ? p : ((p as { text?: string }).text ?? ''))).join('');
  const calls = (m as { tool_calls?: { name: string; args: unknown }[] }).tool_calls;
  if (calls?.length) text += calls.map((tc) => tc.name + JSON.stringify(tc.args)).join('');
  return text;
}

const LONG_RUN = /\S{256}/;
const LONG_RUN_SPLIT = /(\S{256})/;

export class TokenCounter {
  private byObject = new WeakMap<object, number>();
  private byId = new Map<string, number>();
  hits = 0;
  misses = 0;
  constructor(private readonly enc: Encoder) {}

  static async create(name: EncodingName): Promise<TokenCounter> {
    return new TokenCounter(await getEncoder(name));
  }

  /**
   * BPE merging is quadratic in the length of one unbroken run (a 16 k-character
   * line of dashes or hex takes seconds), so long runs are counted in 256-char
   * slices: a slight overestimate, bounded time.
   */
  text(s: string): number {
    if (!s) return 0;
    if (!LONG_RUN.test(s)) return this.enc.encode(s).length;
    let n = 0;
    for (const part of s.split(LONG_RUN_SPLIT)) if (part) n += this.enc.encode(part).length;
    return n;
  }

  /** For texts that repeat call after call (the system prompt): a small exact-match cache. */
  private recent = new Map<string, number>();
  cachedText(s: string): number {
    const hit = this.recent.get(s);
    if (hit !== undefined) return hit;
    const n = this.text(s);
    if (this.recent.size >= 8) this.recent.delete(this.recent.keys().next().value!);
    this.recent.set(s, n);
    return n;
  }

  /** Cached by object identity and by message id (checkpoint reloads create new objects with the same id). */
  message(m: BaseMessage): number {
    const o = this.byObject.get(m);
    if (o !== undefined) {
      this.hits++;
      return o;
    }
    const key = m.id ? `${m.id}:${typeof m.content === 'string' ? m.content.length : 0}` : undefined;
    if (key) {
      const v = this.byId.get(key);
      if (v !== undefined) {
        this.byObject.set(m, v);
        this.hits++;
        return v;
      }
    }
    this.misses++;
    const n = this.text(messageText(m)) + MESSAGE_OVERHEAD;
    this.byObject.set(m, n);
    if (key) this.byId.set(key, n);
    return n;
  }
}

/**
 * Token counting with js-tiktoken's lite build and bundled ranks (no downloads at
 * run time). Building an encoder costs ~200 ms and tens of MB, so each encoding
 * is built lazily (first LLM call), once per process, and message counts are
 * cached per message.
 */
import type { BaseMessage } from '@langchain/core/messages';

export type EncodingName = 'cl100k_base' | 'o200k_base';

interface Encoder {
  encode(text: string): number[];
}

interface Ranks {
  pat_str: string;
  special_tokens: Record<string, number>;
  bpe_ranks: string;
}

/**
 * js-tiktoken's constructor fills two maps — bytes→rank (encode) and rank→bytes
 * (decode, 100 k Uint8Arrays) — through a 100 k-key temporary object: ~80 MB of
 * RSS for cl100k. We only count, so we fill the encode map ourselves with the
 * same keys and ranks the constructor would use; encode() is js-tiktoken's own
 * code on an identical map, so counts stay exact (test/agent/tokens.test.ts
 * compares against the stock encoder).
 */
export function buildCountingEncoder(Tiktoken: new (ranks: Ranks) => Encoder, ranks: Ranks): Encoder {
  const enc = new Tiktoken({ pat_str: ranks.pat_str, special_tokens: ranks.special_tokens, bpe_ranks: '' });
  const rankMap: unknown = Reflect.get(enc, 'rankMap'); // a private field of js-tiktoken
  if (!(rankMap instanceof Map) || rankMap.size !== 0) return new Tiktoken(ranks); // library internals changed
  for (const line of ranks.bpe_ranks.split('\n')) {
    if (!line) continue;
    const fields = line.split(' ');
    const offset = Number.parseInt(fields[1]!, 10);
    for (let i = 2; i < fields.length; i++) rankMap.set(Buffer.from(fields[i]!, 'base64').join(','), offset + i - 2);
  }
  return enc;
}

const encoders = new Map<EncodingName, Promise<Encoder>>();

/** One encoder per encoding per process, built on first use and shared by every session. */
export function getEncoder(name: EncodingName): Promise<Encoder> {
  let p = encoders.get(name);
  if (!p) {
    p = (async () => {
      const { Tiktoken } = await import('js-tiktoken/lite');
      const ranks =
        name === 'o200k_base'
          ? (await import('js-tiktoken/ranks/o200k_base')).default
          : (await import('js-tiktoken/ranks/cl100k_base')).default;
      return buildCountingEncoder(Tiktoken, ranks);
    })();
    p.catch(() => encoders.delete(name));
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

/**
 * BPE merging is superlinear in the length of one unbroken run: 2 MB of one
 * repeated character took minutes even in 256-char slices (~12 ms each). So
 * counting is bounded: runs of 64+ non-space (or space) characters and whole
 * texts above ESTIMATE_ABOVE chars are estimated at one token per 3 UTF-8
 * bytes — an overestimate for real text, which only makes trimming earlier —
 * and the rest is counted exactly. Cost stays linear and small, so Ctrl-C and
 * --max-time keep working while a huge message is in the history.
 */
export const ESTIMATE_ABOVE = 64_000;
export const COUNT_BUDGET_MS = 100;
const LONG_RUN = /\S{64}|\s{64}/;
const LONG_RUN_SPLIT = /(\S{64,}|\s{64,})/;
export function estimateTokens(s: string): number {
  return Math.ceil(Buffer.byteLength(s, 'utf8') / 3);
}

export class TokenCounter {
  private byObject = new WeakMap<object, number>();
  private byId = new Map<string, number>();
  hits = 0;
  misses = 0;
  private enc: Encoder | undefined;
  private loading: Promise<void> | undefined;
  private load?: () => Promise<Encoder>;
  constructor(enc: Encoder | (() => Promise<Encoder>)) {
    if (typeof enc === 'function') this.load = enc;
    else this.enc = enc;
  }

  static async create(name: EncodingName): Promise<TokenCounter> {
    return new TokenCounter(await getEncoder(name));
  }

  /**
   * A counter whose encoder is built on the first ready() (the first LLM call),
   * so an idle session — a TUI waiting at the prompt — does not hold the ranks.
   */
  static lazy(name: EncodingName): TokenCounter {
    return new TokenCounter(() => getEncoder(name));
  }

  /** Resolves once counting works; call before text()/message() on a lazy counter. */
  ready(): Promise<void> {
    if (this.enc) return Promise.resolve();
    return (this.loading ??= this.load!().then(
      (e) => {
        this.enc = e;
      },
      (err: unknown) => {
        this.loading = undefined;
        throw err;
      },
    ));
  }

  private encoder(): Encoder {
    if (!this.enc) throw new Error('token counter used before ready()');
    return this.enc;
  }

  /**
   * Exact for ordinary text; bounded otherwise (see ESTIMATE_ABOVE): long runs are
   * estimated, and once one call has spent COUNT_BUDGET_MS encoding (repetitive
   * text is slow even in short runs) the rest of the text is estimated too.
   */
  text(s: string): number {
    if (!s) return 0;
    const enc = this.encoder();
    if (s.length > ESTIMATE_ABOVE) return estimateTokens(s);
    if (s.length <= 2048 && !LONG_RUN.test(s)) return enc.encode(s).length;
    const t0 = performance.now();
    let n = 0;
    for (const part of s.split(LONG_RUN_SPLIT)) {
      if (!part) continue;
      if (LONG_RUN.test(part)) {
        n += estimateTokens(part);
        continue;
      }
      for (const piece of part.match(/[\s\S]{1,2048}(?=\s|$)|[\s\S]{1,2048}/g) ?? []) {
        n += performance.now() - t0 > COUNT_BUDGET_MS ? estimateTokens(piece) : enc.encode(piece).length;
      }
    }
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

  /** The cached count of a message, without counting (the session store persists it). */
  known(m: BaseMessage): number | undefined {
    return this.byObject.get(m);
  }

  /** A count stored with the message earlier (sessions.db), so a resumed history is not counted again. */
  prime(m: BaseMessage, n: number): void {
    this.byObject.set(m, n);
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

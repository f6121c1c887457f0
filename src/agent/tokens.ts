/**
 * Token counting with js-tiktoken's bundled ranks (no downloads at run time) and a
 * compact counting-only encoder (bpe-count.ts: exact counts, ~4 MB instead of
 * js-tiktoken's ~30 MB of rank-map strings). Each encoding is loaded lazily (first
 * LLM call), once per process, and message counts are cached per message. The
 * build saves each encoding's table next to dist/cli.js (bpe-table-file.ts); a
 * process reads it back when it matches the installed ranks, and builds the table
 * otherwise (from src/, or with a stale dist/).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BaseMessage } from '@langchain/core/messages';
import { CompactCounter, type CountingEncoder, type RankSource } from './bpe-count.js';
import { readRankTable } from './bpe-table-file.js';
import { messageText } from '../sessions/message-text.js';

export type EncodingName = 'cl100k_base' | 'o200k_base';

type Encoder = CountingEncoder;

/**
 * The ranks file's bytes, read rather than imported: an imported module's source
 * (2.3 MB for o200k) and its parsed export would stay in the heap for the life of
 * the process. Read like this, the table is built straight from the raw JSON text
 * (bpe_ranks holds only base64, digits, spaces and `\n` escapes) and the buffer is
 * garbage once it is built.
 */
export function readRanks(name: EncodingName, raw = readRanksFile(name)): RankSource {
  const file = ranksPath(name);
  const field = (key: string): [number, number] => {
    const at = raw.indexOf(`"${key}":"`);
    if (at < 0) throw new Error(`${file}: no ${key}`);
    const start = at + key.length + 4;
    // to the closing quote: the next one not escaped by an odd run of backslashes
    // (indexOf, not a byte loop: bpe_ranks is 1-2 MB)
    let end = raw.indexOf(0x22, start);
    for (;;) {
      if (end < 0) return [start, raw.length];
      let slashes = 0;
      while (raw[end - 1 - slashes] === 0x5c) slashes++;
      if (slashes % 2 === 0) return [start, end];
      end = raw.indexOf(0x22, end + 1);
    }
  };
  const [ps, pe] = field('pat_str');
  const [bs, be] = field('bpe_ranks');
  return { pat_str: JSON.parse(raw.toString('latin1', ps - 1, pe + 1)) as string, bpe_ranks: raw.subarray(bs, be) };
}

function ranksPath(name: EncodingName): string {
  return createRequire(import.meta.url).resolve(`js-tiktoken/ranks/${name}`);
}

/** The installed ranks file of an encoding, as bytes. */
export function readRanksFile(name: EncodingName): Buffer {
  return readFileSync(ranksPath(name));
}

/** Where the build saves an encoding's table: next to the module that loads it (dist/). */
export function rankTablePath(name: EncodingName, dir = dirname(fileURLToPath(import.meta.url))): string {
  return join(dir, `${name}.bpe-table`);
}

/** The encoder of `name`: its saved table when one matches the installed ranks, else built. */
export function loadEncoder(name: EncodingName, dir?: string): Encoder {
  const raw = readRanksFile(name);
  const source = readRanks(name, raw);
  return new CompactCounter(source, readRankTable(rankTablePath(name, dir), raw));
}

const encoders = new Map<EncodingName, Promise<Encoder>>();

/** One encoder per encoding per process, built on first use and shared by every session. */
export function getEncoder(name: EncodingName): Promise<Encoder> {
  let p = encoders.get(name);
  if (!p) {
    p = Promise.resolve().then(() => loadEncoder(name));
    p.catch(() => encoders.delete(name));
    encoders.set(name, p);
  }
  return p;
}

/** Per-message overhead of the chat format (role, separators), as OpenAI documents it. */
const MESSAGE_OVERHEAD = 4;

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
/**
 * The budget is CPU time spent encoding, not wall time: on a loaded machine a short text
 * waited for the CPU past 100 ms and was estimated, so the same prompt counted differently
 * from one call to the next (an estimate's figures no longer matched the request's).
 */
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
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
   * estimated, and once one call has spent COUNT_BUDGET_MS of CPU encoding (repetitive
   * text is slow even in short runs) the rest of the text is estimated too.
   */
  text(s: string): number {
    if (!s) return 0;
    const enc = this.encoder();
    if (s.length > ESTIMATE_ABOVE) return estimateTokens(s);
    if (s.length <= 2048 && !LONG_RUN.test(s)) return enc.count(s);
    const t0 = cpuMs();
    let n = 0;
    for (const part of s.split(LONG_RUN_SPLIT)) {
      if (!part) continue;
      if (LONG_RUN.test(part)) {
        n += estimateTokens(part);
        continue;
      }
      for (const piece of part.match(/[\s\S]{1,2048}(?=\s|$)|[\s\S]{1,2048}/g) ?? []) {
        n += cpuMs() - t0 > COUNT_BUDGET_MS ? estimateTokens(piece) : enc.count(piece);
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

/**
 * A counting-only BPE encoder over a compact rank table.
 *
 * js-tiktoken keeps its ranks in a Map keyed by comma-joined byte strings
 * ("104,101,108"): for o200k that is ~200 k heap strings plus the Map, ~30 MB the
 * process holds for as long as it lives (measured in a heap snapshot of the TUI
 * binary). Here the same ranks live in three typed arrays — every token's bytes
 * back to back, their offsets, and an open-addressing hash table of token indices
 * (~4 MB for o200k) — and pieces are hashed straight from a reusable UTF-8 buffer,
 * so counting allocates almost nothing either.
 *
 * The algorithm is js-tiktoken's, step for step, so counts are identical
 * (test/agent/bpe-count.test.ts compares them on a corpus): the same pre-split
 * regex, UTF-8 bytes as TextEncoder gives them, a piece that is a token counts
 * one, otherwise the lowest-ranked adjacent pair merges first (the first one on
 * ties) until no pair is a token, and merged parts without a rank are dropped.
 * One deliberate difference: special tokens (`<|endoftext|>`) in a text are
 * counted as ordinary text instead of throwing (js-tiktoken refuses such text by
 * default, which would make a message quoting one uncountable).
 */

/**
 * A ranks file's contents: the pre-split pattern, and bpe_ranks as bytes — lines
 * of `<anything> <first rank> <base64 token> <base64 token>…`, separated by a
 * newline or by the two characters `\n` (the raw JSON text of js-tiktoken's ranks
 * file, so the table is built without a 2 MB string or 200 k field strings).
 */
export interface RankSource {
  pat_str: string;
  bpe_ranks: Uint8Array;
}

export interface CountingEncoder {
  /** the number of tokens js-tiktoken's encode(text).length gives */
  count(text: string): number;
}

const B64 = new Int8Array(256).fill(-1);
for (const [i, c] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].entries()) B64[c.charCodeAt(0)] = i;
const SPACE = 32;
const NL = 10;
const BACKSLASH = 92;

/**
 * Walks the token fields of bpe_ranks: onToken(start, end, rank) for each base64
 * token at src[start, end).
 */
function eachToken(src: Uint8Array, onToken: (start: number, end: number, rank: number) => void): void {
  let i = 0;
  const n = src.length;
  const lineEnd = (j: number) => src[j] === NL || (src[j] === BACKSLASH && src[j + 1] === 110);
  while (i < n) {
    // field 0: skipped; field 1: the first rank of the line
    while (i < n && src[i] !== SPACE && !lineEnd(i)) i++;
    if (i >= n || lineEnd(i)) {
      i += i < n && src[i] === BACKSLASH ? 2 : 1;
      continue;
    }
    i++;
    let rank = 0;
    while (i < n && src[i]! >= 48 && src[i]! <= 57) rank = rank * 10 + src[i++]! - 48;
    while (i < n && !lineEnd(i)) {
      if (src[i] === SPACE) {
        i++;
        continue;
      }
      const start = i;
      while (i < n && src[i] !== SPACE && !lineEnd(i)) i++;
      onToken(start, i, rank++);
    }
    i += i < n && src[i] === BACKSLASH ? 2 : 1;
  }
}

/** Decodes base64 src[start, end) into out at pos; returns the new position. */
function decodeBase64(src: Uint8Array, start: number, end: number, out: Uint8Array, pos: number): number {
  let acc = 0;
  let bits = 0;
  for (let i = start; i < end; i++) {
    const v = B64[src[i]!]!;
    if (v < 0) continue; // '=' padding
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[pos++] = (acc >> bits) & 0xff;
    }
  }
  return pos;
}

/** FNV-1a over bytes[start, end) */
function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

/** The typed arrays of a RankTable, as built or as read back from a table file (bpe-table-file.ts). */
export interface RankTableParts {
  /** every token's bytes, back to back */
  bytes: Uint8Array;
  /** token i is bytes[offsets[i], offsets[i + 1]) */
  offsets: Uint32Array;
  ranks: Uint32Array;
  /** token index + 1 per slot, 0 = empty; power-of-two size */
  slots: Int32Array;
  size: number;
}

export class RankTable implements RankTableParts {
  readonly bytes: Uint8Array;
  readonly offsets: Uint32Array;
  readonly ranks: Uint32Array;
  readonly slots: Int32Array;
  readonly size: number;

  constructor(parts: RankTableParts) {
    this.bytes = parts.bytes;
    this.offsets = parts.offsets;
    this.ranks = parts.ranks;
    this.slots = parts.slots;
    this.size = parts.size;
  }

  /** Builds the table from a ranks file's bpe_ranks (~0.1 s of CPU for cl100k). */
  static build(bpeRanks: Uint8Array): RankTable {
    // pass 1: how many tokens and how many bytes (base64: 3 bytes per 4 chars, minus padding)
    let n = 0;
    let byteCount = 0;
    eachToken(bpeRanks, (start, end) => {
      const len = end - start;
      byteCount += Math.floor((len * 3) / 4) - (bpeRanks[end - 1] === 61 ? (bpeRanks[end - 2] === 61 ? 2 : 1) : 0);
      n++;
    });
    let cap = 1;
    while (cap < n * 2) cap <<= 1;
    const t = new RankTable({
      bytes: new Uint8Array(byteCount),
      offsets: new Uint32Array(n + 1),
      ranks: new Uint32Array(n),
      slots: new Int32Array(cap),
      size: 0,
    });
    // pass 2: fill; a repeated byte sequence takes the later rank, as js-tiktoken's maps do
    let k = 0;
    let pos = 0;
    eachToken(bpeRanks, (start, end, rank) => {
      const from = pos;
      pos = decodeBase64(bpeRanks, start, end, t.bytes, pos);
      const existing = t.find(t.bytes, from, pos);
      if (existing >= 0) {
        t.ranks[existing] = rank;
        pos = from;
        return;
      }
      t.offsets[k] = from;
      t.offsets[k + 1] = pos;
      t.ranks[k] = rank;
      t.insert(k);
      k++;
    });
    return new RankTable({ ...t, size: k });
  }

  private insert(token: number): void {
    const mask = this.slots.length - 1;
    let s = hashBytes(this.bytes, this.offsets[token]!, this.offsets[token + 1]!) & mask;
    while (this.slots[s] !== 0) s = (s + 1) & mask;
    this.slots[s] = token + 1;
  }

  /** token index of bytes[start, end), or -1 */
  private find(buf: Uint8Array, start: number, end: number): number {
    const mask = this.slots.length - 1;
    const len = end - start;
    let s = hashBytes(buf, start, end) & mask;
    for (;;) {
      const t = this.slots[s]! - 1;
      if (t < 0) return -1;
      const o = this.offsets[t]!;
      if (this.offsets[t + 1]! - o === len) {
        let i = 0;
        while (i < len && this.bytes[o + i] === buf[start + i]) i++;
        if (i === len) return t;
      }
      s = (s + 1) & mask;
    }
  }

  /** rank of bytes[start, end), or -1 when it is not a token */
  rank(buf: Uint8Array, start: number, end: number): number {
    const t = this.find(buf, start, end);
    return t < 0 ? -1 : this.ranks[t]!;
  }
}

const encoder = new TextEncoder();

export class CompactCounter implements CountingEncoder {
  private readonly pattern: RegExp;
  private buf = new Uint8Array(1024);
  /** part boundaries and pair ranks for bytePairCount, grown as needed */
  private starts = new Int32Array(256);
  private pairRanks = new Float64Array(256);

  readonly table: RankTable;

  /** `table`: the one saved for these ranks (bpe-table-file.ts); built from them when absent */
  constructor(source: RankSource, table?: RankTable) {
    this.table = table ?? RankTable.build(source.bpe_ranks);
    this.pattern = new RegExp(source.pat_str, 'ug');
  }

  count(text: string): number {
    let n = 0;
    for (const match of text.matchAll(this.pattern)) {
      const piece = match[0];
      if (this.buf.length < piece.length * 3) this.buf = new Uint8Array(piece.length * 3);
      const len = encoder.encodeInto(piece, this.buf).written;
      n += this.table.rank(this.buf, 0, len) >= 0 ? 1 : this.bytePairCount(len);
    }
    return n;
  }

  /**
   * js-tiktoken's bytePairMerge + bytePairEncode on buf[0, len), counting the parts
   * that have a rank. Only the pairs next to a merge change, so only those are
   * looked up again (the result is the same as recomputing every pair each round).
   */
  private bytePairCount(len: number): number {
    if (len === 1) return 1; // js-tiktoken: [rank], counted even without one
    if (this.starts.length < len + 1) {
      this.starts = new Int32Array(len + 1);
      this.pairRanks = new Float64Array(len + 1);
    }
    const starts = this.starts;
    const pr = this.pairRanks;
    const t = this.table;
    const buf = this.buf;
    // parts i = [starts[i], starts[i + 1]); parts = len, starts has parts + 1 entries
    let parts = len;
    for (let i = 0; i <= len; i++) starts[i] = i;
    const pairRank = (i: number) => {
      const r = i + 2 <= parts ? t.rank(buf, starts[i]!, starts[i + 2]!) : -1;
      return r < 0 ? Infinity : r;
    };
    for (let i = 0; i < parts - 1; i++) pr[i] = pairRank(i);
    while (parts > 1) {
      let min = Infinity;
      let at = -1;
      for (let i = 0; i < parts - 1; i++)
        if (pr[i]! < min) {
          min = pr[i]!;
          at = i;
        }
      if (at < 0) break;
      // merge parts at and at + 1: drop boundary at + 1
      starts.copyWithin(at + 1, at + 2, parts + 1);
      pr.copyWithin(at + 1, at + 2, parts);
      parts--;
      if (at < parts - 1) pr[at] = pairRank(at);
      if (at > 0) pr[at - 1] = pairRank(at - 1);
    }
    let n = 0;
    for (let i = 0; i < parts; i++) if (t.rank(buf, starts[i]!, starts[i + 1]!) >= 0) n++;
    return n;
  }
}

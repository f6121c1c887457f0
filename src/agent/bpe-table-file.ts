/**
 * A RankTable (bpe-count.ts) saved as one binary file, so a process reads its
 * typed arrays back instead of building them from the ranks file: the build
 * writes one per encoding next to dist/cli.js (tsup.config.ts), and every run
 * that counts tokens saves ~0.1 s of CPU and the garbage of the build.
 *
 * The file names the ranks it was built from by their SHA-256: a table is used
 * only for the very ranks file the process would otherwise build from (an
 * upgraded js-tiktoken with a stale dist/ is built the slow way, never
 * miscounted). Anything wrong with the file (missing, short, other version,
 * other ranks) means "build it", never an error.
 *
 * Layout, little-endian (a big-endian machine builds the table instead): magic
 * (8 bytes), SHA-256 of the ranks file (32), size, offsets length, ranks length,
 * slots length, bytes length (5 × u32), then offsets, ranks, slots (u32/i32 each)
 * and bytes.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { endianness } from 'node:os';
import { RankTable } from './bpe-count.js';

const MAGIC = Buffer.from('GCBPE\0\0\x01', 'latin1');
const HEADER = MAGIC.length + 32 + 5 * 4;

export function ranksDigest(ranksFile: Uint8Array): Buffer {
  return createHash('sha256').update(ranksFile).digest();
}

/** The file's bytes for `table`, built from the ranks file whose bytes are `ranksFile`. */
export function encodeRankTable(table: RankTable, ranksFile: Uint8Array): Buffer {
  const arrays = [table.offsets, table.ranks, table.slots];
  const head = Buffer.alloc(HEADER);
  MAGIC.copy(head, 0);
  ranksDigest(ranksFile).copy(head, MAGIC.length);
  let at = MAGIC.length + 32;
  for (const n of [table.size, ...arrays.map((a) => a.length), table.bytes.length]) at = head.writeUInt32LE(n, at);
  if (endianness() !== 'LE') throw new Error('rank table files are little-endian');
  const body = arrays.map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength));
  return Buffer.concat([head, ...body, Buffer.from(table.bytes.buffer, table.bytes.byteOffset, table.bytes.byteLength)]);
}

/**
 * The table saved in `file` when it was built from exactly `ranksFile`;
 * undefined when the file is missing or does not match (the caller builds it).
 */
export function readRankTable(file: string, ranksFile: Uint8Array): RankTable | undefined {
  if (endianness() !== 'LE') return undefined;
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch {
    return undefined;
  }
  if (buf.length < HEADER || !buf.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  if (!buf.subarray(MAGIC.length, MAGIC.length + 32).equals(ranksDigest(ranksFile))) return undefined;
  let at = MAGIC.length + 32;
  const [size, offsets, ranks, slots, bytes] = Array.from({ length: 5 }, () => {
    const n = buf.readUInt32LE(at);
    at += 4;
    return n;
  }) as [number, number, number, number, number];
  if (buf.length !== HEADER + 4 * (offsets + ranks + slots) + bytes) return undefined;
  if (offsets !== size + 1 || ranks < size || slots === 0 || (slots & (slots - 1)) !== 0) return undefined;
  // typed-array views need 4-byte alignment: a file this size is read into a
  // buffer of its own (offset 0, and HEADER is a multiple of 4); otherwise copy
  let data = buf.buffer;
  let off = buf.byteOffset + HEADER;
  if (off % 4 !== 0) {
    data = new ArrayBuffer(buf.length - HEADER);
    new Uint8Array(data).set(buf.subarray(HEADER));
    off = 0;
  }
  const take = <T>(make: (b: ArrayBufferLike, o: number, n: number) => T, n: number, width: number): T => {
    const view = make(data, off, n);
    off += n * width;
    return view;
  };
  return new RankTable({
    size,
    offsets: take((b, o, n) => new Uint32Array(b, o, n), offsets, 4),
    ranks: take((b, o, n) => new Uint32Array(b, o, n), ranks, 4),
    slots: take((b, o, n) => new Int32Array(b, o, n), slots, 4),
    bytes: take((b, o, n) => new Uint8Array(b, o, n), bytes, 1),
  });
}

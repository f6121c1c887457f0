/**
 * Reading a check file with bounds, before anything parses it: only a regular
 * file, at most MAX_CHECK_FILE_BYTES. The file is opened without blocking and
 * judged by the descriptor it gives (fstat), so a FIFO, a device or a
 * directory is refused instead of read — a FIFO with no writer would block the
 * read forever, out of reach of Ctrl-C — and a file swapped after a stat by
 * name cannot slip through. The read stops one byte past the cap, so a file
 * growing while it is read costs no more.
 */
import { constants, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { UsageError } from '../errors.js';

/** The largest check file read: 2,000 checks of a few lines each fit many times over. */
export const MAX_CHECK_FILE_BYTES = 1024 * 1024;

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

const megabytes = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

export async function readCheckFileText(path: string): Promise<string> {
  let fh;
  try {
    fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (err) {
    throw new UsageError(`cannot read check file ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new UsageError(`check file ${path} is ${kindOf(st)}: a check file is a regular file`);
    const tooBig = (size: string) =>
      new UsageError(`check file ${path} is ${size}: a check file is at most ${megabytes(MAX_CHECK_FILE_BYTES)}`);
    if (st.size > MAX_CHECK_FILE_BYTES) throw tooBig(megabytes(st.size));
    const buf = Buffer.alloc(MAX_CHECK_FILE_BYTES + 1);
    let n = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, n, buf.length - n, null);
      if (bytesRead === 0) break;
      n += bytesRead;
      if (n > MAX_CHECK_FILE_BYTES) throw tooBig(`over ${megabytes(MAX_CHECK_FILE_BYTES)}`);
    }
    return buf.subarray(0, n).toString('utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read check file ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  } finally {
    await fh.close();
  }
}

/**
 * Writes to the user config file (conf's JSON at the XDG path) that do not lose
 * concurrent writers' keys. Optimistic locking: compute the new content from
 * what we read, then, inside a short exclusive section, check that the file is
 * still at the revision we read (its exact bytes) and write; if another process
 * got there first, re-read and re-apply our change on top of theirs (merge).
 * The exclusive section only covers check+write, never the user's edit.
 */
import { ensurePrivateDir, PRIVATE_FILE_MODE, tightenFiles } from './perms.js';
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { userConfigFile } from './paths.js';
import { readJsonObject, type RawConfig } from './files.js';
import { CopilotError, ExitCode } from '../errors.js';

const MAX_ATTEMPTS = 200;
const STALE_LOCK_MS = 10_000;

function readRevision(file: string): { text: string; revision: string } {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return { text, revision: createHash('sha256').update(text).digest('hex') };
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes `<file>.lock` (O_EXCL); clears a lock left by a dead process or older than STALE_LOCK_MS. */
function tryLock(lock: string): boolean {
  try {
    const fd = openSync(lock, 'wx', 0o600);
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  try {
    const owner = Number(readFileSync(lock, 'utf8'));
    const age = Date.now() - statSync(lock).mtimeMs;
    if ((owner > 0 && !processAlive(owner)) || age > STALE_LOCK_MS) unlinkSync(lock);
  } catch {
    // the owner released it meanwhile, or it is being written; just retry
  }
  return false;
}

export interface UpdateResult {
  before: RawConfig;
  after: RawConfig;
  /** how many times another writer got in first and we merged on top */
  retries: number;
}

/**
 * Applies `change` to the user config and writes it, retrying with a fresh
 * read whenever the file changed under us. `change` must be a pure function of
 * its input (it may run several times).
 */
export async function updateUserConfig(change: (current: RawConfig) => RawConfig, file: string = userConfigFile()): Promise<UpdateResult> {
  const lock = `${file}.lock`;
  ensurePrivateDir(dirname(file));
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const read = readRevision(file);
    const before = read.text.trim() === '' ? {} : (readJsonObject(file) ?? {});
    // readJsonObject re-reads; make sure we computed from the revision we hashed
    if (readRevision(file).revision !== read.revision) continue;
    const after = change(structuredClone(before));

    if (!tryLock(lock)) {
      await sleep(2 + Math.random() * 15);
      continue;
    }
    try {
      if (readRevision(file).revision !== read.revision) continue; // someone else wrote: merge on the next round
      await writeWithConf(file, after);
      return { before, after, retries: attempt };
    } finally {
      try {
        unlinkSync(lock);
      } catch {
        // already cleared as stale by another process: harmless
      }
    }
  }
  throw new CopilotError(`could not update ${file}: it kept changing (another process is writing it constantly?)`, ExitCode.Internal);
}

/** conf does the atomic write (temp file + rename) at the XDG location. */
async function writeWithConf(file: string, value: RawConfig): Promise<void> {
  const { default: Conf } = await import('conf');
  const name = basename(file).replace(/\.json$/, '');
  const conf = new Conf<RawConfig>({ cwd: dirname(file), configName: name, clearInvalidConfig: false, configFileMode: PRIVATE_FILE_MODE });
  conf.store = value;
  tightenFiles(file);
}

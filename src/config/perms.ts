/**
 * Private files: the config, data and state directories are 0700 and the
 * files in them (config.json, sessions.db and its -wal/-shm, the log) 0600,
 * so other local users cannot read sessions, device output or settings.
 * Existing directories and files created by older versions are tightened.
 */
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';

const APP_DIR_NAME = 'gns3-copilot';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** chmod when the mode has group/other bits; a file we do not own (or a read-only fs) is left as is. */
function tighten(path: string, mode: number): void {
  try {
    const st = statSync(path);
    if ((st.mode & 0o077) !== 0) chmodSync(path, mode);
  } catch {
    // absent, or not ours to change
  }
}

/**
 * Creates `dir` (and missing parents) 0700. An existing directory is tightened
 * only when it is one of ours (named gns3-copilot, as every XDG default is):
 * GNS3_COPILOT_LOG_FILE=/tmp/x.log must not chmod /tmp.
 */
export function ensurePrivateDir(dir: string): void {
  const created = mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (created !== undefined || basename(dir) === APP_DIR_NAME) tighten(dir, PRIVATE_DIR_MODE);
}

/** Makes existing files 0600 (absent ones are skipped). */
export function tightenFiles(...files: string[]): void {
  for (const f of files) tighten(f, PRIVATE_FILE_MODE);
}

/**
 * Tightens an existing private file and, when it is ours, its directory,
 * without creating anything: every command that reads the user config
 * (a run, `config list`, `sessions list`, `doctor`) fixes a 0644 config.json
 * in a 0755 directory left by an older version or a hand edit.
 */
export function tightenExisting(file: string): void {
  tightenFiles(file);
  const dir = dirname(file);
  if (basename(dir) === APP_DIR_NAME) tighten(dir, PRIVATE_DIR_MODE);
}

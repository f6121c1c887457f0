/**
 * The trace an eval leaves while it runs, so a killed one (kill -9, a crash) can be undone:
 * `<data_dir>/eval-running.json` names the project, the checkpoint the lab must go back to
 * and the faults applied so far. `eval --resume` restores the checkpoint, closes those faults
 * in the ledger and removes the file; an eval does not start while the file is there.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataDir } from '../config/paths.js';
import { UsageError } from '../errors.js';

export interface EvalMarker {
  controller: string;
  project_id: string;
  project: string;
  checkpoint: string;
  /** the checkpoint was saved by this eval (not --from): it is deleted when the eval ends */
  saved: boolean;
  faults: number[];
  pid: number;
  started_at: string;
}

/** `override`: the data_dir setting (default: the user's data directory, where sessions.db is) */
export const markerPath = (override: string | undefined) => join(dataDir(override), 'eval-running.json');

export function readMarker(override: string | undefined): EvalMarker | undefined {
  const p = markerPath(override);
  if (!existsSync(p)) return undefined;
  try {
    return JSON.parse(readFileSync(p, 'utf8')) as EvalMarker;
  } catch {
    throw new UsageError(`${p}: not an eval trace (remove it if no eval was interrupted)`);
  }
}

/** Written whole and renamed into place: a kill never leaves half a file. */
export function writeMarker(override: string | undefined, m: EvalMarker): void {
  const p = markerPath(override);
  writeFileSync(`${p}.tmp`, `${JSON.stringify(m)}\n`, { mode: 0o600 });
  renameSync(`${p}.tmp`, p);
}

export function clearMarker(override: string | undefined): void {
  rmSync(markerPath(override), { force: true });
}

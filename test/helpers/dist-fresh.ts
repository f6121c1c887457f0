/**
 * Whether dist/ was built after every input of the bundle changed. The vitest global setup
 * rebuilds only when it was not: `npm ci` has just built it on a clean clone, and a second
 * build there costs the whole suite its wall-clock seconds while no test can run.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** What tsup reads: the sources, its config, and the dependencies it bundles (the lock files move when they do). */
export const BUNDLE_INPUTS = [
  'src',
  'tsup.config.ts',
  'tsconfig.json',
  'package.json',
  'package-lock.json',
  'node_modules/.package-lock.json',
];

/** Newest modification time under `path`, directories included (deleting a file touches its
 * directory); 0 when the path does not exist. */
export function newestMtime(path: string): number {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) return 0;
  let newest = st.mtimeMs;
  if (st.isDirectory()) for (const name of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, name)));
  return newest;
}

/** True when dist/cli.js exists and is newer than every bundle input of the repo at `root`. */
export function distIsCurrent(root: string): boolean {
  const built = statSync(join(root, 'dist', 'cli.js'), { throwIfNoEntry: false });
  if (!built) return false;
  return BUNDLE_INPUTS.every((p) => newestMtime(join(root, p)) < built.mtimeMs);
}

/**
 * A temp dir for one test file whose `xdg` folder is XDG_CONFIG_HOME while the file's
 * tests run; afterwards XDG_CONFIG_HOME is restored and the dir removed. Returns a
 * getter for the dir (it exists from the file's beforeAll on).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

export function useTempXdgConfig(prefix: string): () => string {
  const saved = process.env.XDG_CONFIG_HOME;
  let root = '';
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), prefix));
    process.env.XDG_CONFIG_HOME = join(root, 'xdg');
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
    else process.env.XDG_CONFIG_HOME = saved;
    rmSync(root, { recursive: true, force: true });
  });
  return () => root;
}

import { defineConfig } from 'tsup';
import { mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

// Every test run rebuilds dist/ (vitest globalSetup) while other runs may be
// executing bin/ -> dist/ at that moment. So each build writes to its own
// staging dir and then moves files in with atomic renames, chunks first and
// the entry last: a running process never sees a half-written file or an
// entry whose chunks are not there yet. Old hashed chunks stay (harmless).
const STAGING = join('dist', `.staging-${process.pid}`);

async function publish(): Promise<void> {
  const files = readdirSync(STAGING);
  const entry = new Set(['cli.js', 'cli.js.map']);
  for (const f of files.filter((f) => !entry.has(f))) renameSync(join(STAGING, f), join('dist', f));
  for (const f of ['cli.js.map', 'cli.js']) if (files.includes(f)) renameSync(join(STAGING, f), join('dist', f));
  rmSync(STAGING, { recursive: true, force: true });
  // Chunks (and crashed builds' staging dirs) untouched for an hour belong to
  // builds no running process can still be loading from.
  const cutoff = Date.now() - 3_600_000;
  for (const f of readdirSync('dist')) {
    const p = join('dist', f);
    const st = statSync(p, { throwIfNoEntry: false });
    if (st && st.mtimeMs < cutoff && (st.isFile() || f.startsWith('.staging-'))) rmSync(p, { recursive: true, force: true });
  }
}

mkdirSync('dist', { recursive: true });

// One ESM bundle per entry; every dependency stays external so native modules
// (better-sqlite3, @napi-rs/keyring, ssh2) load from node_modules and lazy
// `import()` calls inside cli.ts stay lazy (code-split chunks).
export default defineConfig({
  entry: ['src/cli.ts'],
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  outDir: STAGING,
  splitting: true,
  sourcemap: true,
  clean: false,
  dts: false,
  skipNodeModulesBundle: true,
  // ...except Ink: its one `import { throttle } from 'es-toolkit/compat'` loads all of
  // es-toolkit's compat barrel (415 modules, ~3 MB of heap held for the life of the TUI).
  // Bundled, esbuild keeps only throttle; Ink's own dependencies stay external.
  noExternal: ['ink', /^es-toolkit/],
  onSuccess: publish,
});

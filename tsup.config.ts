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

// Left to node_modules: native modules (their .node binaries are found relative
// to their own files) and Ink's optional devtools, which is not installed.
const EXTERNAL = ['better-sqlite3', '@napi-rs/keyring', 'ssh2', 'react-devtools-core'];
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const BUNDLED = new RegExp(`^(?!(${EXTERNAL.map(escape).join('|')})(/|$))`);

// One ESM bundle per entry, code-split so lazy `import()` calls stay lazy
// (separate chunks). Every other dependency is bundled: a one-shot run loading
// ~900 modules from node_modules spent about half its CPU resolving, reading and
// compiling them. Bundled CommonJS packages (undici, commander...) call require()
// for Node's built-ins, which an ES module does not have: the banner gives each
// chunk one.
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
  external: EXTERNAL,
  noExternal: [BUNDLED],
  banner: {
    js: "import { createRequire as __bundleCreateRequire } from 'node:module'; const require = __bundleCreateRequire(import.meta.url);",
  },
  onSuccess: publish,
});

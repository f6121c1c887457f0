import { defineConfig } from 'tsup';
import { build, type Plugin } from 'esbuild';
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RankTable } from './src/agent/bpe-count.js';
import { encodeRankTable } from './src/agent/bpe-table-file.js';
import { readRanks, readRanksFile, rankTablePath, type EncodingName } from './src/agent/tokens.js';

// A test run rebuilds dist/ when a source changed (vitest globalSetup) while other runs may be
// executing bin/ -> dist/ at that moment. So each build writes to its own
// staging dir and then moves files in with atomic renames, chunks first and
// the entry last: a running process never sees a half-written file or an
// entry whose chunks are not there yet. Old hashed chunks stay (harmless).
const STAGING = join('dist', `.staging-${process.pid}`);

// Token counting's rank tables, built here once instead of in every run that
// counts (src/agent/bpe-table-file.ts); they are published with the chunks.
function writeRankTables(): void {
  for (const name of ['cl100k_base', 'o200k_base'] satisfies EncodingName[]) {
    const raw = readRanksFile(name);
    writeFileSync(rankTablePath(name, STAGING), encodeRankTable(RankTable.build(readRanks(name, raw).bpe_ranks), raw));
  }
}

async function publish(): Promise<void> {
  writeRankTables();
  await Promise.all([buildBundle(), buildWarmClient()]);
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

// @langchain/core's uuid v5 hashes with a SHA-1 written in JavaScript, and LangGraph
// makes one per task per step: the bundle gets Node's native one instead
// (src/agent/uuid-sha1.ts). Should the file move in an update, nothing matches
// and the original stays.
const nativeUuidSha1: Plugin = {
  name: 'native-uuid-sha1',
  setup(build) {
    build.onResolve({ filter: /^\.\/sha1\.js$/ }, (args) =>
      /[\\/]@langchain[\\/]core[\\/]dist[\\/]utils[\\/]uuid$/.test(args.resolveDir)
        ? { path: join(process.cwd(), 'src', 'agent', 'uuid-sha1.ts') }
        : undefined,
    );
  },
};

// The one-file bundle of agent runs (src/boot/): everything an agent run loads in one CommonJS
// script, which Node 20 can run from a V8 code cache (src/boot/code-cache.ts) — ES modules it
// cannot. Same sources and options as the code-split build below, except: no Ink (the TUI runs
// on the code-split build; src/cli/tui-elsewhere.ts stands in for src/ui/start.ts), every
// `import()` a `require()` (V8 loses a cached script's dynamic-import host, and the bundled
// ones need none), `import.meta.url` the bundle's own file URL, and strict mode as in a module.
const tuiElsewhere: Plugin = {
  name: 'tui-elsewhere',
  setup(build) {
    build.onResolve({ filter: /[\\/]ui[\\/]start\.js$/ }, (args) =>
      args.resolveDir.startsWith(join(process.cwd(), 'src')) ? { path: join(process.cwd(), 'src', 'cli', 'tui-elsewhere.ts') } : undefined,
    );
  },
};

/** What the two one-file CommonJS scripts (dist/warm.cjs, dist/core.cjs) are built with. */
const ONE_CJS_FILE = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
} as const;

// The bin's first step (src/boot/warm/client-entry.ts), CommonJS like the bin: a warm one-shot's
// client loads this one small script and nothing of the code-split build.
async function buildWarmClient(): Promise<void> {
  await build({ ...ONE_CJS_FILE, entryPoints: ['src/boot/warm/client-entry.ts'], outfile: join(STAGING, 'warm.cjs') });
}

async function buildBundle(): Promise<void> {
  await build({
    entryPoints: ['src/cli.ts'],
    outfile: join(STAGING, 'core.cjs'),
    ...ONE_CJS_FILE,
    external: EXTERNAL,
    keepNames: true,
    sourcemap: true,
    // `import.meta` other than `.url` (defined below) would be empty in this script: a build error
    logOverride: { 'empty-import-meta': 'error' },
    supported: { 'dynamic-import': false },
    define: { 'import.meta.url': '__bundle_url', GNS3_COPILOT_BUILD: '"bundle"' },
    banner: { js: '"use strict";var __bundle_url=require("node:url").pathToFileURL(__filename).href;' },
    plugins: [nativeUuidSha1, tuiElsewhere],
  });
}

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
  // Bundling renames a class whose name collides in a chunk, or that refers to
  // itself (`class ZodError` becomes `class _ZodError`), and libraries compare
  // constructor names (@langchain/core's isInteropZodError, @langchain/openai's
  // abort and timeout mapping): keep every original name.
  keepNames: true,
  // Less source to decode and scan at start-up; identifiers stay as written.
  minifyWhitespace: true,
  minifySyntax: true,
  define: { GNS3_COPILOT_BUILD: '"modules"' },
  noExternal: [BUNDLED],
  banner: {
    js: "import { createRequire as __bundleCreateRequire } from 'node:module'; const require = __bundleCreateRequire(import.meta.url);",
  },
  esbuildPlugins: [nativeUuidSha1],
  onSuccess: publish,
});

import { defineConfig } from 'tsup';

// One ESM bundle per entry; every dependency stays external so native modules
// (better-sqlite3, @napi-rs/keyring, ssh2) load from node_modules and lazy
// `import()` calls inside cli.ts stay lazy (code-split chunks).
export default defineConfig({
  entry: ['src/cli.ts'],
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  outDir: 'dist',
  splitting: true,
  sourcemap: true,
  // Not `clean`: every test run rebuilds dist/ (vitest globalSetup) while other
  // runs may be executing bin/ -> dist/; wiping the directory first made their
  // binaries vanish for a second. Stale hashed chunks are harmless.
  clean: false,
  dts: false,
  skipNodeModulesBundle: true,
});

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
  clean: true,
  dts: false,
  skipNodeModulesBundle: true,
});

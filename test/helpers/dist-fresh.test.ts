/** The global setup's rebuild decision: dist/ counts as current only when it is newer than every bundle input. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUNDLE_INPUTS, distIsCurrent, newestMtime } from './dist-fresh.js';

let root: string;
const at = (path: string, seconds: number) => utimesSync(join(root, path), seconds, seconds);
const write = (path: string, seconds: number) => {
  writeFileSync(join(root, path), 'x');
  at(path, seconds);
};

/** a repo whose inputs all date from t=1000 s and whose build from t=2000 s */
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'dist-fresh-'));
  mkdirSync(join(root, 'src/agent'), { recursive: true });
  mkdirSync(join(root, 'node_modules'));
  mkdirSync(join(root, 'dist'));
  for (const f of ['src/cli.ts', 'src/agent/graph.ts', ...BUNDLE_INPUTS.filter((p) => p !== 'src')]) write(f, 1000);
  for (const d of ['src/agent', 'src', 'node_modules']) at(d, 1000);
  write('dist/cli.js', 2000);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('distIsCurrent', () => {
  it('is true when dist/cli.js is newer than every input', () => {
    expect(distIsCurrent(root)).toBe(true);
  });

  it('is false without a build', () => {
    unlinkSync(join(root, 'dist/cli.js'));
    expect(distIsCurrent(root)).toBe(false);
  });

  it.each([
    'src/agent/graph.ts',
    'tsup.config.ts',
    'tsconfig.json',
    'package.json',
    'package-lock.json',
    'node_modules/.package-lock.json',
  ])('is false once %s changed after the build', (path) => {
    at(path, 3000);
    expect(distIsCurrent(root)).toBe(false);
  });

  it('is false once a source file was added or deleted after the build (its directory changed)', () => {
    unlinkSync(join(root, 'src/agent/graph.ts'));
    at('src/agent', 3000);
    expect(distIsCurrent(root)).toBe(false);
  });

  it('is false when a source changed in the same instant as the build', () => {
    at('src/cli.ts', 2000);
    expect(distIsCurrent(root)).toBe(false);
  });
});

describe('newestMtime', () => {
  it('is 0 for a missing path and the newest entry of a tree otherwise', () => {
    expect(newestMtime(join(root, 'nothing'))).toBe(0);
    at('src/agent/graph.ts', 1500);
    expect(newestMtime(join(root, 'src'))).toBe(1_500_000);
  });
});

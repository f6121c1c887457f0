/**
 * The code cache of the agent bundle (src/boot/code-cache.ts) with real V8 caches: a small
 * CommonJS script run through runBundle in this process, its cache written on the V8-flags
 * announcement, used by the next run, refused (and compiled without) when it does not fit.
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cacheDirFor, cacheName, runBundle } from '../../src/boot/code-cache.js';
import { V8_FLAGS_EVENT } from '../../src/core/v8-flags.js';

let root: string;
let dist: string;
let bundle: string;
const env = () => ({ XDG_CACHE_HOME: join(root, 'xdg'), HOME: join(root, 'home') });
const runs = () => (globalThis as { __bundleRuns?: number }).__bundleRuns ?? 0;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gcl-code-cache-'));
  dist = join(root, 'dist');
  mkdirSync(dist);
  bundle = join(dist, 'core.cjs');
  // uses what a bundle has: require, module, __filename
  writeFileSync(
    bundle,
    `"use strict";
     const { basename } = require('node:path');
     function twice(x) { return x * 2; }
     module.exports = basename(__filename);
     globalThis.__bundleRuns = (globalThis.__bundleRuns ?? 0) + twice(1) / 2;`,
  );
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the code cache of the agent bundle', () => {
  it('runs the bundle; the first run compiles and writes the cache when V8 flags are about to change, the next uses it', () => {
    const before = runs();
    expect(runBundle(bundle, 'run', env())).toBe('cold');
    expect(runs()).toBe(before + 1);
    const dir = join(dist, '.code-cache');
    expect(readdirSync(dir)).toEqual([]);
    process.emit(V8_FLAGS_EVENT as 'exit', 0);
    expect(readdirSync(dir)).toEqual([cacheName(bundle, 'run', env())]);
    expect(statSync(join(dir, cacheName(bundle, 'run', env()))).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(runBundle(bundle, 'run', env())).toBe('used');
    expect(runs()).toBe(before + 2);
    // another kind of run has its own cache
    expect(runBundle(bundle, 'estimate', env())).toBe('cold');
  });

  it('a cache that does not fit (corrupt, another V8) is refused: the bundle compiles and still runs', () => {
    const dir = cacheDirFor(bundle, env())!;
    writeFileSync(join(dir, cacheName(bundle, 'run', env())), Buffer.from('not a V8 code cache at all'));
    const before = runs();
    expect(runBundle(bundle, 'run', env())).toBe('cold');
    expect(runs()).toBe(before + 1);
  });

  it('a rebuilt bundle (other size or time) gets another name; caches of old builds go when one is written, an hour on', () => {
    const first = cacheName(bundle, 'run', env());
    const dir = cacheDirFor(bundle, env())!;
    const hourAgo = new Date(Date.now() - 2 * 3_600_000);
    for (const f of [first, cacheName(bundle, 'estimate', env()), `${first}.123.tmp`]) {
      writeFileSync(join(dir, f), 'x');
      utimesSync(join(dir, f), hourAgo, hourAgo);
    }
    writeFileSync(bundle, '"use strict"; globalThis.__bundleRuns = (globalThis.__bundleRuns ?? 0) + 1; // rebuilt');
    expect(cacheName(bundle, 'run', env())).not.toBe(first);
    // this build's estimate cache, written recently, stays
    writeFileSync(join(dir, cacheName(bundle, 'estimate', env())), 'y');
    expect(runBundle(bundle, 'run', env())).toBe('cold');
    process.emit(V8_FLAGS_EVENT as 'exit', 0);
    expect(readdirSync(dir).sort()).toEqual([cacheName(bundle, 'estimate', env()), cacheName(bundle, 'run', env())].sort());
  });

  it('lives next to the bundle when this user owns it, else in the user cache directory (0700), never in one another user owns', () => {
    expect(cacheDirFor(bundle, env())).toBe(join(dist, '.code-cache'));
    const other = join(root, 'other-dist');
    mkdirSync(other);
    if (process.getuid?.() === 0) chownSync(other, 4242, 4242);
    else chmodSync(other, 0o500);
    const xdg = join(root, 'xdg', 'gns3-copilot', 'code-cache');
    expect(cacheDirFor(join(other, 'core.cjs'), env())).toBe(xdg);
    expect(statSync(xdg).mode & 0o777).toBe(0o700);
    if (process.getuid?.() === 0) {
      // a cache directory that someone else owns is not used at all
      rmSync(join(root, 'xdg'), { recursive: true });
      mkdirSync(xdg, { recursive: true });
      chownSync(xdg, 4242, 4242);
      expect(cacheDirFor(join(other, 'core.cjs'), env())).toBeUndefined();
    }
  });
});

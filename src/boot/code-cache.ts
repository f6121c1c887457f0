/**
 * Runs the one-file bundle of agent runs and class commands (dist/core.cjs) with a V8 code
 * cache: the bytecode of every function the first run compiled, so later runs neither parse
 * the bundle nor compile those functions again (Node 20 has no compile cache of its own;
 * `module.enableCompileCache` is Node 22). V8 checks a cache against its own version, flags
 * and the source, and ignores one that does not fit; the file's name adds the bundle's size
 * and time and Node's flags, so a rebuilt bundle or another Node gets its own.
 *
 * Where: next to the bundle (dist/.code-cache/) when this user owns dist/ — a user who can
 * rewrite the code may as well cache it — else in the user's own cache directory
 * ($XDG_CACHE_HOME or ~/.cache, gns3-copilot/code-cache/, mode 0700), never a directory another
 * user owns. Written once per kind of run (`--estimate`, a request or a subcommand: each caches
 * what it compiles), by the first run of that kind that exits 0 or 7 — it ran to its end, only
 * its verdict failed (a usage error leaves no cache of nothing) — or
 * changes V8's flags (src/core/v8-flags.ts: after that V8 would refuse the cache), atomically (a
 * temporary file renamed into place: thirty runs starting together each see a whole cache or
 * none).
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cachedDataVersionTag, setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';
import { V8_FLAGS_EVENT } from '../core/v8-flags.js';
import { CODE_CACHE_ENV } from './route.js';

/** How a run used the cache: from it, compiled without one (written at an exit 0), or no cache directory. */
export type CacheUse = 'used' | 'cold' | 'none';

/**
 * A cache of another build of the bundle (or a temporary file) untouched this long is gone when
 * the next cache is written: a run that started on the old build has long ended, and a
 * developer's rebuilds would otherwise pile up ~3 MB each.
 */
const STALE_MS = 3_600_000;

/** Exit 7 (src/errors.ts ChecksFailed): a `check` or `faults check` that ran to its end and found something failing. */
const COMPLETED_NOT_PASSED = 7;

const ownedByMe = (path: string): boolean => {
  const st = lstatSync(path, { throwIfNoEntry: false });
  return !!st && st.isDirectory() && (typeof process.getuid !== 'function' || st.uid === process.getuid());
};

/** The directory the cache of `bundle` lives in (created when missing), or undefined when no safe one exists. */
export function cacheDirFor(bundle: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dist = dirname(bundle);
  const candidates = [
    ...(ownedByMe(dist) ? [join(dist, '.code-cache')] : []),
    join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'gns3-copilot', 'code-cache'),
  ];
  for (const dir of candidates) {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      if (ownedByMe(dir)) return dir;
    } catch {
      // read-only install or home: the next candidate, or no cache
    }
  }
  return undefined;
}

/**
 * The cache file's name: the bundle, its size and time, Node's version, the flags V8 was
 * started with, and the kind of run (`kind`: an `--estimate` compiles less than a request).
 */
export function cacheName(bundle: string, kind: string, env: NodeJS.ProcessEnv = process.env): string {
  const flags = createHash('sha256')
    .update(`${process.execArgv.join(' ')}\n${env.NODE_OPTIONS ?? ''}`)
    .digest('hex')
    .slice(0, 12);
  return `${buildKey(bundle)}${process.version}-${process.arch}-${flags}-${kind}.v8`;
}

/** The start of every cache name of this build of the bundle. */
function buildKey(bundle: string): string {
  const st = statSync(bundle);
  return `${basename(bundle)}-${st.size}-${Math.floor(st.mtimeMs)}-`;
}

function readCache(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

function writeCache(dir: string, name: string, data: Buffer, keep: string): void {
  const file = join(dir, name);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, data, { mode: 0o600 });
    renameSync(tmp, file);
    const now = Date.now();
    for (const f of readdirSync(dir)) {
      const st = statSync(join(dir, f), { throwIfNoEntry: false });
      const other = !f.startsWith(keep) || f.endsWith('.tmp');
      if (other && st && now - st.mtimeMs > STALE_MS) rmSync(join(dir, f), { force: true });
    }
  } catch {
    // a full disk or a vanished directory costs the next run its head start, nothing else
    rmSync(tmp, { force: true });
  }
}

/** Writes the cache of `script` the first time it is called while V8's flags are still those it started with. */
function cacheTaker(script: Script, dir: string, name: string, keep: string): () => void {
  const tag = cachedDataVersionTag();
  let taken = false;
  return () => {
    if (taken || cachedDataVersionTag() !== tag) return;
    taken = true;
    writeCache(dir, name, script.createCachedData(), keep);
  };
}

/**
 * Runs `bundle` (a CommonJS script) as the main program, from its code cache for runs of this
 * `kind` when there is a fitting one; without one, writes it (see above).
 */
export function runBundle(at: URL | string, kind: string, env: NodeJS.ProcessEnv = process.env): CacheUse {
  const bundle = typeof at === 'string' ? at : fileURLToPath(at);
  // WebAssembly in the baseline compiler only: the one module an agent run compiles is undici's
  // HTTP parser, and optimising it on background threads cost ~100 ms of CPU per run
  // (bench/startup.bench.ts) for a few kilobytes of HTTP. Set before the cache is read: V8 keys
  // a cache to its flags.
  setFlagsFromString('--liftoff-only');
  const source = readFileSync(bundle, 'utf8');
  const dir = cacheDirFor(bundle, env);
  const name = cacheName(bundle, kind, env);
  const cached = dir ? readCache(join(dir, name)) : undefined;
  const script = new Script(Module.wrap(source), { filename: bundle, ...(cached ? { cachedData: cached } : {}) });
  const use: CacheUse = cached && !script.cachedDataRejected ? 'used' : dir ? 'cold' : 'none';
  if (env[CODE_CACHE_ENV] === 'report') process.stderr.write(`code cache: ${use}${dir ? ` (${join(dir, name)})` : ''}\n`);
  if (use === 'cold' && dir) {
    const take = cacheTaker(script, dir, name, buildKey(bundle));
    (process as NodeJS.EventEmitter).once(V8_FLAGS_EVENT, take);
    process.once('exit', (code) => (code === 0 || code === COMPLETED_NOT_PASSED) && take());
  }
  const wrapper = script.runInThisContext() as (
    exports: object,
    require: NodeJS.Require,
    module: { exports: object },
    filename: string,
    dirname: string,
  ) => void;
  const module = { exports: {} };
  wrapper.call(module.exports, module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  return use;
}

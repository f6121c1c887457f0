/**
 * The bin's first step (bin/gns3-copilot.js), built on its own as dist/warm.cjs: with warm
 * one-shots on (GNS3_COPILOT_WARM) and a one-shot command line, the run goes through the warm
 * process (./client.ts) — or, when none answers, runs the bundle here (../code-cache.ts) —
 * without Node's ES module loader or the code-split entry: a warm one-shot's client spends
 * about 20 ms less CPU. Every other command line goes on to dist/cli.js as before.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runBundle } from '../code-cache.js';
import { WARM_SERVE_ENV, bundleKindOfProcess, warmMode } from '../route.js';
import { viaWarm } from './client.js';

/** Runs this process's command line as a warm one-shot of the build in `dist`; false when it is none. */
export function warmOneShot(dist: string): boolean {
  const mode = warmMode(process.env);
  // a warm process itself is started on dist/cli.js, which serves
  if (!mode || process.env[WARM_SERVE_ENV]) return false;
  const argv = process.argv.slice(2);
  const kind = bundleKindOfProcess(argv);
  if (kind !== 'run' && kind !== 'estimate') return false;
  const bundle = pathToFileURL(join(dist, 'core.cjs'));
  void viaWarm(argv, bundle, pathToFileURL(join(dist, 'cli.js')), mode).then((code) =>
    code === undefined ? runBundle(bundle, kind) : (process.exitCode = code),
  );
  return true;
}

/**
 * The command line (docs/cli.md), after the bin's first step (a warm one-shot goes to this
 * user's warm process from there: src/boot/warm/client-entry.ts). `--version` loads nothing at
 * all; an agent run that cannot be the TUI, and a class command (check, checkpoint, faults,
 * inject --scenario), goes to the one-file bundle with its code cache (src/boot/); a warm
 * process (src/boot/warm/) starts as this file too; everything else first
 * draws the dependency-free first frame of the TUI (src/ui/first-frame.ts), then loads the
 * program (src/cli/program.ts: commander and the small modules of src/cli/), so `--help` stays
 * close to bare `node` start-up; every command loads what it needs with `import()` when it runs.
 *
 * No top-level `await`: this file is also the entry of that bundle, a CommonJS script.
 */
import pkg from '../package.json' with { type: 'json' };
import { WARM_SERVE_ENV, bundleKindOfProcess } from './boot/route.js';
import { drawFirstFrame } from './ui/first-frame.js';

/** Which build this is: set by tsup.config.ts; undefined when run from source (tsx). */
declare const GNS3_COPILOT_BUILD: 'modules' | 'bundle' | undefined;
const build = typeof GNS3_COPILOT_BUILD === 'undefined' ? undefined : GNS3_COPILOT_BUILD;

// `--version` alone is answered before anything else loads (not even
// commander): it is what scripts and shell prompts call most.
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`${pkg.version}\n`);
  process.exit(0);
}
const bundle = new URL('core.cjs', import.meta.url);
const runOnBundle = (kind: string) => void import('./boot/code-cache.js').then(({ runBundle }) => runBundle(bundle, kind));
const serveAt = build === undefined ? undefined : process.env[WARM_SERVE_ENV];
const kind = build === 'modules' && !serveAt ? bundleKindOfProcess(argv) : undefined;
if (serveAt) {
  // this process is a warm one-shot process (src/boot/warm/), on the bundle, from the code cache
  // of one-shot requests: what a request compiles is what it runs
  if (build === 'modules') runOnBundle('run');
  else {
    const program = () => import('./cli/program.js').then((p) => p.runProgram);
    void import('./boot/warm/server.js').then(({ serve }) => serve(serveAt, program));
  }
} else if (kind !== undefined) {
  runOnBundle(kind);
} else {
  // The TUI's input line is on screen (and takes typing) before commander, the settings and Ink load.
  drawFirstFrame(argv);
  void import('./cli/program.js').then(({ runProgram }) => runProgram());
}

/**
 * Which build a command line runs on (docs/ARCHITECTURE.md, Start-up), decided by src/cli.ts of
 * the code-split build before anything else loads. Agent runs that cannot be the TUI (a prompt
 * flag, or stdin or stdout not a terminal) and the class commands (`check`, `checkpoint`,
 * `faults`, `inject --scenario|--random`) run the one-file bundle with a V8 code cache
 * (./code-cache.ts): it skips parsing and compiling the program's ~4 MB of JavaScript and the
 * ~130 module look-ups of the code-split build. Everything else — the TUI, the other
 * subcommands, `--help`, `--version` — runs the code-split ES modules, which load only what
 * the command needs. Both builds are the same program: a wrong guess costs time, never
 * behaviour (the bundle hands a command line that turns out to be the TUI to the modules).
 */
import { isatty } from 'node:tty';
import { SUBCOMMANDS, type TtyLike } from '../ui/first-frame.js';

/** The environment variable that turns the bundle and its code cache off (`off`), or has the bundle say how it used the cache (`report`: one line on stderr). */
export const CODE_CACHE_ENV = 'GNS3_COPILOT_CODE_CACHE';

/** `on` (or `report`: one line on stderr says how the run went) sends prompt one-shots through this user's warm process (./warm/). */
export const WARM_ENV = 'GNS3_COPILOT_WARM';
/** Set by a warm client on the process it starts: the socket that process is to serve. */
export const WARM_SERVE_ENV = 'GNS3_COPILOT_WARM_SERVE';

export type WarmMode = 'on' | 'report';

export function warmMode(env: NodeJS.ProcessEnv): WarmMode | undefined {
  const v = env[WARM_ENV];
  return v === 'on' || v === 'report' ? v : undefined;
}

/**
 * Subcommands that run on the bundle too: the class commands an instructor or a script runs
 * over and over (start-up is most of a `check` of one project), none of which is the TUI.
 */
const BUNDLED_SUBCOMMANDS = new Set(['check', 'checkpoint', 'faults']);
/** `inject` flags that make it the deterministic injection (no LLM, no TUI). */
const SCENARIO_FLAGS = ['--scenario', '--random'];

/** Flags that make a run a one-shot agent run. */
const PROMPT_FLAGS = ['-p', '--prompt', '--estimate'];
/** Flags that print and exit: nothing of the agent loads. */
const PRINT_FLAGS = ['-h', '--help', '-V', '--version'];

const isFlag = (a: string, flags: readonly string[]) => flags.some((f) => a === f || a.startsWith(`${f}=`));

/**
 * The kind of bundle run a command line is — `estimate`, `run` (an agent run: the main command or
 * `inject` with a prompt flag, or with stdin or stdout not a terminal) or the bundled
 * subcommand's name; each kind has its own code cache, as each compiles other functions — or
 * undefined for the modules: the TUI, every other subcommand, help and version.
 */
export function bundleKind(
  argv: readonly string[],
  io: { stdin: TtyLike; stdout: TtyLike; env: NodeJS.ProcessEnv },
  subcommands: ReadonlySet<string>,
): string | undefined {
  if (io.env[CODE_CACHE_ENV] === 'off') return undefined;
  let prompt = false;
  let estimate = false;
  let scenario = false;
  let sub: string | undefined;
  for (const a of argv) {
    if (a === '--') break;
    if (isFlag(a, PRINT_FLAGS) || (/^-[hV]/.test(a) && !a.startsWith('--'))) return undefined;
    if (subcommands.has(a)) {
      // the first subcommand word decides: a later one is its argument (`faults check`) or a value
      if (sub !== undefined) continue;
      if (a !== 'inject' && !BUNDLED_SUBCOMMANDS.has(a)) return undefined;
      sub = a;
    }
    if (isFlag(a, PROMPT_FLAGS) || (/^-p./.test(a) && !a.startsWith('--'))) prompt = true;
    if (isFlag(a, ['--estimate'])) estimate = true;
    if (isFlag(a, SCENARIO_FLAGS)) scenario = true;
  }
  if (sub !== undefined && sub !== 'inject') return sub;
  if (sub === 'inject' && scenario) return 'inject';
  if (prompt || io.stdin.isTTY !== true || io.stdout.isTTY !== true) return estimate ? 'estimate' : 'run';
  return undefined;
}

/** The kind of bundle run this process's command line is (isatty, not process.stdin: that would open the stream this early). */
export function bundleKindOfProcess(argv: readonly string[]): string | undefined {
  return bundleKind(argv, { stdin: { isTTY: isatty(0) }, stdout: { isTTY: isatty(1) }, env: process.env }, SUBCOMMANDS);
}

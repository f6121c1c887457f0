/**
 * Which build a command line runs on (docs/ARCHITECTURE.md, Start-up), decided by src/cli.ts of
 * the code-split build before anything else loads. Agent runs that cannot
 * be the TUI (a prompt flag, or stdin or stdout not a terminal) run the one-file bundle with a
 * V8 code cache (./code-cache.ts): it skips parsing and compiling the agent's ~4 MB of
 * JavaScript and the ~130 module look-ups of the code-split build. Everything else — the TUI,
 * subcommands, `--help`, `--version` — runs the code-split ES modules, which load only what
 * the command needs. Both builds are the same program: a wrong guess costs time, never
 * behaviour (the bundle hands a command line that turns out to be the TUI to the modules).
 */
import type { TtyLike } from '../ui/first-frame.js';

export type Build = 'bundle' | 'modules';

/** The environment variable that turns the bundle and its code cache off (`off`), or has the bundle say how it used the cache (`report`: one line on stderr). */
export const CODE_CACHE_ENV = 'GNS3_COPILOT_CODE_CACHE';

/** Flags that make a run a one-shot agent run. */
const PROMPT_FLAGS = ['-p', '--prompt', '--estimate'];
/** Flags that print and exit: nothing of the agent loads. */
const PRINT_FLAGS = ['-h', '--help', '-V', '--version'];

const isFlag = (a: string, flags: readonly string[]) => flags.some((f) => a === f || a.startsWith(`${f}=`));

/**
 * `bundle` for an agent run: the main command or `inject` with a prompt flag, or with stdin or
 * stdout not a terminal (a prompt piped in, output to a script). `modules` for anything else,
 * including every other subcommand and any word that may name one (`-p check` guesses
 * `modules`: slower, same result).
 */
export function buildFor(
  argv: readonly string[],
  io: { stdin: TtyLike; stdout: TtyLike; env: NodeJS.ProcessEnv },
  subcommands: ReadonlySet<string>,
): Build {
  if (io.env[CODE_CACHE_ENV] === 'off') return 'modules';
  let prompt = false;
  for (const a of argv) {
    if (a === '--') break;
    if (isFlag(a, PRINT_FLAGS) || (/^-[hV]/.test(a) && !a.startsWith('--'))) return 'modules';
    if (subcommands.has(a) && a !== 'inject') return 'modules';
    if (isFlag(a, PROMPT_FLAGS) || (/^-p./.test(a) && !a.startsWith('--'))) prompt = true;
  }
  return prompt || io.stdin.isTTY !== true || io.stdout.isTTY !== true ? 'bundle' : 'modules';
}

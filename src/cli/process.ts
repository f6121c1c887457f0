/**
 * The process boundary of the command line: one error line and its exit code
 * (docs/ARCHITECTURE.md, Errors and exit codes), draining output before exit, and
 * Ctrl-C / SIGTERM ending with 130.
 */
import { redact } from '../security/redact.js';
import { dropFirstFrame } from '../ui/first-frame.js';
import { sanitizeLine, sanitizeText } from '../security/sanitize.js';
import { requestRunning } from '../output/reader-gone.js';
import { exitHeld } from '../core/interrupt.js';
import { runState } from '../core/run-state.js';

export const EXIT_USAGE = 2;
const EXIT_INTERNAL = 1;
const EXIT_ABORTED = 130;

/** Read before parsing (runProgram), so that even a parse-time failure honours it. */
export function noteVerbose(argv: readonly string[]): void {
  runState().verbose = argv.includes('--verbose') || argv.includes('-v');
}

/** The one line an error is reported as (redacted, printable). */
export function errorLine(err: unknown): string {
  const message = redact(err instanceof Error ? err.message : String(err));
  return sanitizeLine(message.split('\n')[0] ?? message);
}

/** One line on stderr; a stack only for unexpected errors and only with --verbose. */
export function reportError(err: unknown): number {
  // Duck-typed CopilotError (src/errors.ts) so that this file imports nothing but commander.
  const e = err as { exitCode?: unknown; stack?: unknown };
  const known = err instanceof Error && typeof e.exitCode === 'number';
  // The TUI's first frame (drawn before the command line was parsed) goes before the message.
  dropFirstFrame();
  const firstLine = errorLine(err);
  if (known) {
    process.stderr.write(`error: ${firstLine}\n`);
    return e.exitCode as number;
  }
  process.stderr.write(`error: internal error: ${firstLine}\n`);
  if (runState().verbose && typeof e.stack === 'string') process.stderr.write(`${sanitizeText(redact(e.stack))}\n`);
  return EXIT_INTERNAL;
}

export async function exit(code: number): Promise<never> {
  // Let pending stdout/stderr writes drain before leaving (pipes to slow readers).
  await new Promise<void>((r) => process.stdout.write('', () => r()));
  await new Promise<void>((r) => process.stderr.write('', () => r()));
  process.exit(code);
}

/**
 * Ctrl-C / SIGTERM. When a run installed its own handler (one-shot and TUI abort the run and
 * print what they have), we only make sure the exit code ends up 130 within 5 s — unless a run
 * holds the exit (holdExitAfterSignal); with nobody else listening, or on a second signal, we
 * leave at once.
 */
function onSignal(signal: NodeJS.Signals): void {
  const othersListening = process.listenerCount(signal) > 1;
  const run = runState();
  if (run.signalled || !othersListening) {
    void exit(EXIT_ABORTED);
    return;
  }
  run.signalled = true;
  if (!exitHeld()) setTimeout(() => void exit(EXIT_ABORTED), 5_000).unref();
}

/** Signals, closed pipes and stray errors end the process with the documented exit code. */
export function installProcessHandlers(): void {
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // `gns3-copilot --help | head`: a closed pipe is the reader's choice, not our error. The stream
  // is destroyed, so later writes go nowhere; a running request still ends and is stored, and
  // its exit code is the process's (src/output/reader-gone.ts).
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE' && !requestRunning()) process.exit(process.exitCode ?? 0);
    });
  }
  process.on('unhandledRejection', (err) => void exit(reportError(err)));
  process.on('uncaughtException', (err) => void exit(reportError(err)));
}

/** Also prints a failure on stdout as JSON (src/cli/json-failure.ts), when the command line asks for JSON. */
export function onJsonFailure(fn: (exitCode: number, line: string) => Promise<void>): void {
  runState().jsonFailure = fn;
}

/** reportError, then the JSON document of the failure when one is due. */
export async function failWith(err: unknown): Promise<number> {
  const code = reportError(err);
  await runState().jsonFailure?.(code, errorLine(err));
  return code;
}

/** Runs an action and turns its result or error into the process exit code. */
export function act<A extends unknown[]>(fn: (...args: A) => Promise<number | void>) {
  return async (...args: A) => {
    let code: number;
    try {
      code = (await fn(...args)) ?? 0;
    } catch (err) {
      code = await failWith(err);
    }
    await exit(runState().signalled ? EXIT_ABORTED : code);
  };
}

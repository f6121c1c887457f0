/**
 * The main job: decide between the interactive TUI and a one-shot run, and
 * hand over. The TUI (src/ui/start.ts) and one-shot (./oneshot.ts) are loaded
 * only when chosen, so neither pays for the other.
 */
import type { InvocationOptions, Settings } from '../config/schema.js';
import { UsageError } from '../errors.js';

export interface InvocationInput {
  /** -p/--prompt, or the positional prompt of `inject` */
  prompt?: string;
  json?: boolean;
  streamJson?: boolean;
  /** --estimate: needs a prompt; prints text or --json */
  estimate?: boolean;
  continueLatest?: boolean;
  resumeId?: string;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  /** reads piped stdin to the end; only called when stdin is not a TTY and no prompt was given */
  readStdin: () => Promise<string>;
}

/**
 * Prompt from -p, else piped stdin (when stdin is not a TTY). Interactive when
 * there is no prompt and both ends are a terminal; otherwise a usage error,
 * because a TUI without a terminal cannot work.
 */
export async function resolveInvocation(input: InvocationInput): Promise<InvocationOptions> {
  if (input.json && input.streamJson) throw new UsageError('--json and --stream-json cannot be combined; pick one');
  if (input.estimate && input.streamJson) throw new UsageError('--estimate prints text or --json, not --stream-json');
  if (input.continueLatest && input.resumeId) throw new UsageError('--continue and --resume cannot be combined; pick one');
  let prompt = input.prompt;
  if (prompt !== undefined && prompt.trim() === '') throw new UsageError('--prompt: must not be empty');
  if (prompt === undefined && !input.stdinIsTTY) {
    const piped = (await input.readStdin()).trim();
    if (piped !== '') prompt = piped;
  }
  const output: InvocationOptions['output'] = input.json ? 'json' : input.streamJson ? 'stream-json' : 'text';
  if (input.estimate && prompt === undefined) throw new UsageError('--estimate: no prompt: pass -p "<prompt>" or pipe one on stdin');
  const interactive = prompt === undefined && input.stdinIsTTY && input.stdoutIsTTY;
  if (prompt === undefined && !interactive) {
    throw new UsageError('no prompt: pass -p "<prompt>" or pipe one on stdin (the interactive TUI needs a terminal)');
  }
  if (interactive && output !== 'text') {
    throw new UsageError(`--${output} is a one-shot output format: add -p "<prompt>"`);
  }
  return {
    ...(prompt !== undefined ? { prompt } : {}),
    output,
    continueLatest: input.continueLatest ?? false,
    ...(input.resumeId ? { resumeId: input.resumeId } : {}),
    interactive,
    ...(input.estimate ? { estimate: true } : {}),
  };
}

export async function readAllStdin(stream: NodeJS.ReadableStream = process.stdin): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * One-shot cannot ask anyone, so `--approve ask` there is a usage error. An
 * `ask` from a config file (meant for the TUI) falls back to one-shot's
 * default `never` instead of breaking every scripted run.
 */
export function applyApprovalPolicy(settings: Settings, invocation: InvocationOptions, approveOrigin: string | undefined): Settings {
  if (invocation.interactive || settings.approve !== 'ask') return settings;
  if (approveOrigin?.startsWith('flag') || approveOrigin?.startsWith('env')) {
    const who = approveOrigin.startsWith('flag') ? '--approve' : approveOrigin.replace(/^env /, '');
    throw new UsageError(`${who}: "ask" needs the interactive TUI; in one-shot use never|config|all`);
  }
  return { ...settings, approve: 'never' };
}

export async function runMain(settings: Settings, invocation: InvocationOptions): Promise<number> {
  // a check file the verifications would run is read now: a bad one is a usage error before any request
  if (settings.checks !== undefined) await (await import('../check/verify-checks.js')).loadSessionChecks(settings);
  if (invocation.interactive) {
    const [{ startTui }, { sessionOpener }] = await Promise.all([import('../ui/start.js'), import('./agent-session.js')]);
    return startTui(settings, invocation, { opener: sessionOpener });
  }
  if (invocation.estimate) {
    const { runEstimate } = await import('./estimate.js');
    return runEstimate(settings, invocation);
  }
  const { runOneShot } = await import('./oneshot.js');
  return runOneShot(settings, invocation);
}

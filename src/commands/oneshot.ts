/**
 * One-shot mode: run one request and exit with its documented code (src/errors.ts). stdout carries
 * only the output (answer text, the --json object or the --stream-json lines);
 * diagnostics go to stderr. SIGINT/SIGTERM abort the run cleanly (pending tool
 * calls are recorded as aborted, so `--continue` works) and exit 130. A closed stdout
 * (`… | head`) stops the output only: the request ends and is stored, with its own exit code.
 */
import type { InvocationOptions, Settings } from '../config/schema.js';
import type { AgentEvent } from '../core/events.js';
import { ExitCode, UsageError, errorMessage, errorTypeOf } from '../errors.js';
import { ResultBuilder, exitCodeOf } from '../output/summary.js';
import { TextPrinter } from '../output/text.js';
import { StreamJsonPrinter } from '../output/stream-json.js';
import { printJsonResult } from '../output/json.js';
import { redact } from '../security/redact.js';
import { sanitizeLine } from '../security/sanitize.js';
import { whileRequestRuns } from '../output/reader-gone.js';
import { RegressionWatch } from '../core/regressions.js';
import { findingText } from '../core/verification.js';

/** One request; a reader that closes our stdout stops the printing, never the request (src/output/reader-gone.ts). */
export function runOneShot(settings: Settings, invocation: InvocationOptions): Promise<number> {
  return whileRequestRuns(() => oneShot(settings, invocation));
}

async function oneShot(settings: Settings, invocation: InvocationOptions): Promise<number> {
  const prompt = invocation.prompt?.trim();
  if (!prompt) throw new UsageError('no prompt: pass -p "<prompt>" or pipe one on stdin');
  if (settings.approve === 'ask') throw new UsageError('--approve: "ask" needs the interactive TUI; in one-shot use never|config|all');

  const stdout = process.stdout;
  const stderr = process.stderr;
  const builder = new ResultBuilder(settings.mode);
  const text =
    invocation.output === 'text'
      ? new TextPrinter(stdout, stderr, settings.color && stderr.isTTY === true && !process.env.NO_COLOR)
      : undefined;
  const stream = invocation.output === 'stream-json' ? new StreamJsonPrinter(stdout) : undefined;
  const watch = new RegressionWatch();
  const emit = (e: AgentEvent) => {
    builder.add(e);
    watch.add(e);
    text?.event(e);
    stream?.event(e);
  };

  const ac = new AbortController();
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals++;
    if (signals === 1) {
      // only a keyboard interrupt can be pressed again; SIGTERM (kill, systemd) just stops
      stderr.write(signal === 'SIGINT' ? '\ninterrupted: stopping (press Ctrl-C again to quit immediately)\n' : `\n${signal}: stopping\n`);
      ac.abort('aborted');
    } else process.exit(ExitCode.Aborted);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  let session: import('../agent/session.js').CopilotSession | undefined;
  try {
    const { openAgentSession } = await import('./agent-session.js');
    session = await openAgentSession({ settings, invocation });
    if (session.resumed && invocation.output === 'text') stderr.write(`resuming session ${session.id.slice(0, 8)}\n`);
    for (const n of session.notices) stderr.write(`notice: ${sanitizeLine(n)}\n`);
    for await (const e of session.send(prompt, { signal: ac.signal })) emit(e);
    builder.setTree(session.treeView());
  } catch (err) {
    // Failures before the run starts (bad context_limit, no API key, unknown session…)
    const message = sanitizeLine(redact(errorMessage(err).split('\n')[0] ?? 'error'));
    const type = errorTypeOf(err);
    if (invocation.output === 'text') throw err;
    emit({ type: 'error', error: { type, message } });
    builder.fail(type, message);
    stream?.event({ type: 'done', stopped_reason: type === 'aborted' ? 'aborted' : 'error', stats: builder.result().stats });
    stderr.write(`error: ${message}\n`);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await session?.close().catch(() => undefined);
  }
  text?.finish();
  if (session && watch.regressed().length > 0) await onRegression(settings, session.id, watch, builder, ac.signal);
  const result = builder.result();
  if (invocation.output === 'json') printJsonResult(stdout, result);
  else if (invocation.output === 'stream-json' && result.error) stderr.write(`error: ${sanitizeLine(result.error.message)}\n`);
  return exitCodeOf(result);
}

/** `--on-regression`: a regressed change is kept (exit 7) or its devices rewound through the gate; said on stderr. */
async function onRegression(
  settings: Settings,
  sessionId: string,
  watch: RegressionWatch,
  builder: ResultBuilder,
  signal: AbortSignal,
): Promise<void> {
  const calls = watch.regressed();
  const devices = watch.devices();
  const findings = calls.flatMap((c) => c.verification.regressions).map(findingText);
  process.stderr.write(`regression: ${sanitizeLine(findings.join('; '))}\n`);
  const checkpoints = watch.checkpoints();
  const base = { action: settings.on_regression, calls: calls.map((c) => c.id), devices, checkpoints };
  if (settings.on_regression === 'keep') {
    process.stderr.write('the regression is kept (--on-regression keep): exit 7\n');
    builder.setRegression({ ...base, status: 'kept' });
    return;
  }
  if (devices.length === 0) {
    process.stderr.write('cannot rewind: the regressed calls have no checkpoint; the regression is kept\n');
    builder.setRegression({ ...base, status: 'not_rewound', rewind: 'no checkpoint of the changed devices' });
    return;
  }
  try {
    const { rewindRegressed } = await import('../undo/regression-rewind.js');
    const r = await rewindRegressed(settings, sessionId, devices, checkpoints, signal);
    process.stderr.write(sanitizeLine(r.text.split('\n')[0] ?? '') + '\n');
    builder.setRegression({ ...base, status: r.restored ? 'rewound' : 'not_rewound', rewind: r.text });
  } catch (err) {
    const message = sanitizeLine(redact(errorMessage(err).split('\n')[0] ?? 'error'));
    process.stderr.write(`rewind failed: ${message}; the regression is kept\n`);
    builder.setRegression({ ...base, status: 'not_rewound', rewind: `rewind failed: ${message}` });
  }
}

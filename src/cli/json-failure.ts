/**
 * One rule for every failure of a command run with `--json` or `--stream-json`:
 * stdout carries a JSON document naming the error (the line on stderr and the
 * exit code stay as they are), whether the failure came from parsing the flags,
 * checking a value, or the run itself. A script reading stdout never gets
 * nothing. A one-shot gets its own result shape (`--json`: the result object;
 * `--stream-json`: an `error` and a `done` event); a subcommand
 * `{"error": {"type", "message"}}`. `--json` with `--stream-json` names no
 * format to answer in: stdout stays empty.
 */
import { errorTypeForExit } from '../errors.js';
import { jsonText } from '../output/json-text.js';

export type JsonFailureShape = 'oneshot-json' | 'oneshot-stream-json' | 'command-json';

/** The JSON a failure prints for this command line, if any (`inject` is a one-shot too). */
export function jsonFailureShape(argv: readonly string[], subcommands: readonly string[]): JsonFailureShape | undefined {
  const end = argv.indexOf('--');
  const args = end === -1 ? argv : argv.slice(0, end);
  const sub = args.find((a) => subcommands.includes(a));
  // `inject --scenario|--random` is a command (its report or `{"error"}`), plain `inject` a one-shot
  const scenarioRun = args.some((a) => /^--(scenario|random)(=|$)/.test(a));
  const oneShot = sub === undefined || (sub === 'inject' && !scenarioRun);
  // both formats at once is itself the usage error: no format to answer in
  if (args.includes('--json') && args.includes('--stream-json')) return undefined;
  if (oneShot && args.includes('--stream-json')) return 'oneshot-stream-json';
  if (args.includes('--json')) return oneShot ? 'oneshot-json' : 'command-json';
  return undefined;
}

export async function printJsonFailure(
  shape: JsonFailureShape,
  exitCode: number,
  message: string,
  out: { write(s: string): unknown } = process.stdout,
): Promise<void> {
  const error = { type: errorTypeForExit(exitCode), message };
  if (shape === 'command-json') {
    out.write(jsonText({ error }) + '\n');
    return;
  }
  const { ResultBuilder } = await import('../output/summary.js');
  const builder = new ResultBuilder('teaching_assistant');
  builder.fail(error.type, message);
  if (shape === 'oneshot-json') {
    out.write(jsonText(builder.result()) + '\n');
    return;
  }
  const { StreamJsonPrinter } = await import('../output/stream-json.js');
  const printer = new StreamJsonPrinter(out);
  printer.event({ type: 'error', error });
  printer.event({ type: 'done', stopped_reason: 'error', stats: builder.result().stats });
}

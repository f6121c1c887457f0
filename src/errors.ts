/**
 * Exit codes, the error classes that carry them, and the one map between an
 * exit code and the `ErrorType` of an `error` event (docs/ARCHITECTURE.md,
 * "Errors and exit codes"). Every error that reaches the CLI boundary is printed
 * as one line; only unexpected errors (exit 1) may print more, and only with --verbose.
 */
import { redact } from './security/redact.js';
import type { ErrorType } from './core/events.js';

export const ExitCode = {
  Ok: 0,
  Internal: 1,
  Usage: 2,
  Controller: 3,
  Provider: 4,
  Limit: 5,
  ApprovalUnavailable: 6,
  /** `check` / `faults check`: one or more checks failed or errored */
  ChecksFailed: 7,
  /** `rewind`, `checkpoint restore`: a device or the topology is not back at its checkpoint after the restore; `faults restore`: the restore did not complete */
  NotRestored: 8,
  Aborted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export class CopilotError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = ExitCode.Internal,
    options?: { cause?: unknown },
  ) {
    // every error message may carry text from a provider, controller or device
    super(redact(message), options);
    this.name = new.target.name;
  }
}

/** Bad flag, bad config value, unknown subcommand argument: exit 2. */
export class UsageError extends CopilotError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, ExitCode.Usage, options);
  }
}

/** GNS3 controller unreachable or authentication failed: exit 3. */
export class ControllerError extends CopilotError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, ExitCode.Controller, options);
  }
}

/** LLM provider unreachable, auth failed, or refused the request: exit 4. */
export class ProviderError extends CopilotError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, ExitCode.Provider, options);
  }
}

export class AbortedError extends CopilotError {
  constructor(message = 'Aborted') {
    super(message, ExitCode.Aborted);
  }
}

/** The one map: the exit code of each `ErrorType` (`error` events, `--json` `error.type`). */
export const EXIT_CODE_OF_TYPE: Readonly<Record<ErrorType, ExitCode>> = {
  internal: ExitCode.Internal,
  usage: ExitCode.Usage,
  controller: ExitCode.Controller,
  provider: ExitCode.Provider,
  limit: ExitCode.Limit,
  approval: ExitCode.ApprovalUnavailable,
  aborted: ExitCode.Aborted,
};

/** The `ErrorType` of an exit code; any code outside the map is `internal`. */
export function errorTypeForExit(code: number): ErrorType {
  for (const [type, exit] of Object.entries(EXIT_CODE_OF_TYPE)) if (exit === code) return type as ErrorType;
  return 'internal';
}

/** The exit code an error ends a run with: its own for a CopilotError, else 1. */
export function exitCodeOfError(err: unknown): ExitCode {
  return err instanceof CopilotError ? err.exitCode : ExitCode.Internal;
}

/** The `ErrorType` an error is reported as (`error` events, the TUI's failed turn). */
export function errorTypeOf(err: unknown): ErrorType {
  return errorTypeForExit(exitCodeOfError(err));
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/**
 * Exit codes (SPEC §3) and the error classes that carry them. Every error that
 * reaches the CLI boundary is printed as one line; only unexpected errors (exit 1)
 * may print more, and only with --verbose.
 */
import { redact } from './security/redact.js';

export const ExitCode = {
  Ok: 0,
  Internal: 1,
  Usage: 2,
  Controller: 3,
  Provider: 4,
  Limit: 5,
  ApprovalUnavailable: 6,
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

/** A runtime limit was reached and --on-limit fail was set: exit 5. */
export class LimitReachedError extends CopilotError {
  constructor(message: string) {
    super(message, ExitCode.Limit);
  }
}

/** A tool needed approval but nobody can give it (one-shot): exit 6. */
export class ApprovalUnavailableError extends CopilotError {
  constructor(message: string) {
    super(message, ExitCode.ApprovalUnavailable);
  }
}

export class AbortedError extends CopilotError {
  constructor(message = 'Aborted') {
    super(message, ExitCode.Aborted);
  }
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

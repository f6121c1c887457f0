import { describe, expect, it } from 'vitest';
import {
  AbortedError,
  ControllerError,
  CopilotError,
  EXIT_CODE_OF_TYPE,
  ExitCode,
  ProviderError,
  UsageError,
  errorTypeForExit,
  errorTypeOf,
  exitCodeOfError,
} from '../../src/errors.js';
import { Gns3ApiError, Gns3NotFoundError } from '../../src/gns3/errors.js';
import { ConnectError } from '../../src/devices/transport.js';
import { SessionError } from '../../src/devices/session.js';

describe('the one error map', () => {
  it('maps every exit code to its error type and back', () => {
    for (const [type, code] of Object.entries(EXIT_CODE_OF_TYPE)) expect(errorTypeForExit(code)).toBe(type);
    expect(errorTypeForExit(ExitCode.ApprovalUnavailable)).toBe('approval');
    expect(errorTypeForExit(42)).toBe('internal');
    expect(new Set(Object.values(EXIT_CODE_OF_TYPE)).size).toBe(Object.keys(EXIT_CODE_OF_TYPE).length);
  });

  it('types an error by the exit code it carries', () => {
    expect(errorTypeOf(new UsageError('x'))).toBe('usage');
    expect(errorTypeOf(new ControllerError('x'))).toBe('controller');
    expect(errorTypeOf(new Gns3ApiError(404, 'gone', 'GET', '/v3/projects?x=1'))).toBe('controller');
    expect(errorTypeOf(new ProviderError('x'))).toBe('provider');
    expect(errorTypeOf(new AbortedError())).toBe('aborted');
    expect(errorTypeOf(new CopilotError('x', ExitCode.Limit))).toBe('limit');
    expect(errorTypeOf(new CopilotError('x', ExitCode.ApprovalUnavailable))).toBe('approval');
    expect(errorTypeOf(new Error('plain'))).toBe('internal');
    expect(errorTypeOf('a string')).toBe('internal');
    // a foreign object with an exitCode is not trusted
    expect(exitCodeOfError({ exitCode: 3 })).toBe(ExitCode.Internal);
  });

  it('every error class of the project extends the base and keeps its name', () => {
    for (const err of [new Gns3NotFoundError('n'), new ConnectError('c'), new SessionError('s')]) {
      expect(err).toBeInstanceOf(CopilotError);
      expect(err.name).toBe(err.constructor.name);
      expect(errorTypeOf(err)).toBe('internal');
    }
  });
});

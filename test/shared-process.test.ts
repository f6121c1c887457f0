/**
 * The "shared" project (vitest.shared.ts) runs its files in one process per worker, one after
 * another: a file there that set process-wide state would leak it into whichever file runs next
 * and make a pass depend on the order. This keeps the list to files that cannot.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SHARED_PROCESS_TESTS } from '../vitest.shared.js';
import { PEER_TESTS } from '../vitest.unit.config.js';

/** What leaks from one file to the next in a shared process, each with its reason. */
const LEAKS: [RegExp, string][] = [
  [/process\.env(\.[A-Za-z_]+|\[[^\]]*\])\s*(=[^=]|\?\?=)|delete process\.env|Object\.assign\(process\.env/, 'writes the environment'],
  [/vi\.(mock|doMock|stubEnv|stubGlobal|spyOn)\b/, 'mocks, stubs or spies'],
  [/useFakeTimers|setSystemTime/, 'fakes the clock'],
  [/process\.(chdir|umask|on|once|exit)\(|process\.exitCode|process\.argv/, 'changes the process'],
  [/globalThis/, 'touches globals'],
  [/\bspawn\(|execFile|runCli|startLab|tmux|startSecretService/, 'runs child processes or a lab'],
  // the secrets registered by any file before it (a session's keys, the environment's) stay registered
  [/security\/redact|registerSecret/, 'reads the process-wide secret registry'],
];

describe('the files that share a process', () => {
  it('exist, are in-process (not peer tests) and set no process-wide state', () => {
    expect(new Set(SHARED_PROCESS_TESTS).size).toBe(SHARED_PROCESS_TESTS.length);
    const problems = SHARED_PROCESS_TESTS.flatMap((file) => {
      if (!existsSync(file)) return [`${file}: no such file`];
      if (PEER_TESTS.some((p) => p === file || (p.endsWith('/**') && file.startsWith(p.slice(0, -2))))) return [`${file}: a peer test`];
      const text = readFileSync(file, 'utf8');
      return LEAKS.filter(([re]) => re.test(text)).map(([, why]) => `${file}: ${why}`);
    });
    expect(problems).toEqual([]);
  });

  it('start from the environment test/agent/helpers.ts sets, whichever file ran before', () => {
    const envLines = (file: string) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => /^(delete )?process\.env\./.test(l));
    expect(envLines('test/helpers/shared-env.ts')).toEqual(envLines('test/agent/helpers.ts'));
    expect(envLines('test/helpers/shared-env.ts').length).toBeGreaterThan(0);
  });
});

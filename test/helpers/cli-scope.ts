/**
 * One test file's worth of CLI fixtures: isolated HOME/XDG envs (removed after
 * the file) and the fake LLM of the running test (closed after each test).
 */
import { afterAll, afterEach } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fakes/llm/server.js';
import { cliEnv, type CliEnv } from '../e2e/oneshot-cli.js';

export interface CliScope {
  /** a fresh isolated env with the scope's base variables plus `extra` */
  fresh(extra?: NodeJS.ProcessEnv): CliEnv;
  startLlm(...args: Parameters<typeof startFakeLlm>): Promise<FakeLlm>;
  /** registers something to close after the current test (servers, temp dirs) */
  onCleanup(fn: () => unknown): void;
}

export function cliScope(base: NodeJS.ProcessEnv = {}): CliScope {
  const envs: CliEnv[] = [];
  const perTest: (() => unknown)[] = [];
  afterEach(async () => {
    while (perTest.length) await perTest.pop()!();
  });
  afterAll(() => envs.forEach((e) => e.cleanup()));
  return {
    fresh(extra = {}) {
      const e = cliEnv({ ...base, ...extra });
      envs.push(e);
      return e;
    },
    async startLlm(...args) {
      const llm = await startFakeLlm(...args);
      perTest.push(() => llm.close());
      return llm;
    },
    onCleanup(fn) {
      perTest.push(fn);
    },
  };
}

/**
 * Fake LLM servers for one test file, each closed after the test that started it:
 * `const startLlm = fakeLlmServers(); const llm = await startLlm([{ text: 'hi' }]);`.
 * No side effects on import (the e2e tests use it next to their own CLI env).
 */
import { afterEach } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fakes/llm/server.js';

export function fakeLlmServers(): typeof startFakeLlm {
  const started: FakeLlm[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((l) => l.close()));
  });
  return async (...args) => {
    const l = await startFakeLlm(...args);
    started.push(l);
    return l;
  };
}

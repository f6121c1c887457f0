/**
 * Small CLI behaviours: SIGTERM does not ask to press Ctrl-C again;
 * gns3_topology_reader is a teaching-mode tool as docs/tools.md says. (inject
 * under a lock: test/security/locks.test.ts; stop_gns3_node at the deadline:
 * test/gns3/tools.test.ts.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { startFakeLlm, type FakeLlm } from '../fakes/llm/server.js';
import { cliEnv, llmFlags, runCli } from '../e2e/oneshot-cli.js';
import { MODE_TOOLS, toolAllowed } from '../../src/core/modes.js';

let llm: FakeLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

async function signalMidRun(signal: NodeJS.Signals) {
  const e = cliEnv({ GNS3_COPILOT_API_KEY: 'sk-test-signal-000000' });
  llm = await startFakeLlm([{ hang: true, text: 'thinking' }]);
  let child: ChildProcess | undefined;
  const run = runCli(['-p', 'wait', ...llmFlags(llm.url)], e.env, { onSpawn: (c) => (child = c) });
  const t0 = Date.now();
  while (llm.requests.length === 0 && Date.now() - t0 < 15_000) await new Promise((r) => setTimeout(r, 50));
  child!.kill(signal);
  const r = await run;
  e.cleanup();
  return r;
}

describe('signals during a one-shot run', () => {
  it('SIGTERM stops with exit 130 and does not say "press Ctrl-C again"', async () => {
    const r = await signalMidRun('SIGTERM');
    expect(r.code).toBe(130);
    expect(r.stderr).not.toMatch(/Ctrl-C/);
    expect(r.stderr).toMatch(/SIGTERM: stopping/);
  });
  it('SIGINT still offers the second Ctrl-C', async () => {
    const r = await signalMidRun('SIGINT');
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/press Ctrl-C again/);
  });
});

describe('mode table', () => {
  it('gns3_topology_reader is allowed in teaching (and lab and inject) mode', () => {
    for (const m of ['teaching_assistant', 'lab_automation_assistant', 'troubleshooting_injection'] as const)
      expect(toolAllowed(m, 'gns3_topology_reader'), m).toBe(true);
    expect(MODE_TOOLS.teaching_assistant).not.toContain('stop_gns3_node');
  });
});

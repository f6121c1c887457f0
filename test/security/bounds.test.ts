/**
 * Bounded tokenizer and input caps: a long run of one
 * character is counted in bounded time, a multi-MB prompt is refused with a
 * clear usage error, a 1 MB tool argument is not executed nor stored, and
 * SIGINT / --max-time stay responsive with a huge prompt in flight.
 */
import { describe, expect, it } from 'vitest';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { llmFlags, runCli } from '../e2e/oneshot-cli.js';
import { parseJsonResult } from '../e2e/oneshot-schema.js';
import { TokenCounter } from '../../src/agent/tokens.js';
import { cliScope } from '../helpers/cli-scope.js';

const scope = cliScope({ GNS3_COPILOT_API_KEY: 'sk-test-bounds-0000000' });

describe('token counting is bounded', () => {
  // how fast is bench/timing.bench.ts; here: the pathological inputs finish and give a usable estimate
  it('2 MB of one character, and 60 KB of short repeated runs, count to an estimate', async () => {
    const c = await TokenCounter.create('cl100k_base');
    for (const s of ['a'.repeat(2_000_000), ('a'.repeat(63) + ' ').repeat(900), ('x'.repeat(15) + ' ').repeat(3800), '-'.repeat(60_000)]) {
      const n = c.text(s);
      expect(n).toBeGreaterThan(s.length / 64); // an estimate, never zero
    }
    expect(c.text('hello world')).toBe(2); // ordinary text stays exact
  });
});

describe('the built binary', () => {
  it('refuses a 2 MB prompt at once with a clear usage error', async () => {
    const e = scope.fresh();
    const llm = await scope.startLlm([{ text: 'never' }]);
    const t0 = Date.now();
    const r = await runCli([...llmFlags(llm.url)], e.env, { stdin: 'a'.repeat(2_000_000) });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: the prompt is 1954 KB; the limit is 256 KB/);
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(llm.requests).toHaveLength(0);
  });

  it('a 200 KB one-character prompt runs promptly', async () => {
    const e = scope.fresh();
    const llm = await scope.startLlm([{ text: 'ok' }]);
    const t0 = Date.now();
    const r = await runCli(['--json', ...llmFlags(llm.url, 'gpt-4o')], e.env, { stdin: 'a'.repeat(200_000) });
    expect(r.code, r.stderr).toBe(0);
    expect(Date.now() - t0).toBeLessThan(15_000);
  });

  it('a 1 MB tool argument is not executed and not stored; the run goes on', async () => {
    const e = scope.fresh();
    const huge = {
      id: 'big',
      name: 'execute_multiple_device_commands',
      args: { device_configs: [{ device_name: 'R1', commands: ['x'.repeat(1_000_000)] }] },
    };
    const llm = await scope.startLlm([{ tool_calls: [huge] }, { text: 'split it' }]);
    const t0 = Date.now();
    const r = await runCli(['-p', 'go', '--json', ...llmFlags(llm.url)], e.env);
    expect(r.code, r.stderr).toBe(0);
    const j = parseJsonResult(r.stdout);
    expect(j.tool_calls[0]).toMatchObject({ status: 'error' });
    expect(JSON.stringify(j.tool_calls[0])).toMatch(/977 KB, over the 64 KB limit for one call; it was not executed/);
    expect(Date.now() - t0).toBeLessThan(15_000);
    const db = join(e.home, 'data/gns3-copilot/sessions.db');
    const size = statSync(db).size + (statSync(`${db}-wal`, { throwIfNoEntry: false })?.size ?? 0);
    expect(size).toBeLessThan(1_000_000);
    // the model's next request does not carry the megabyte either
    expect(JSON.stringify(llm.requests.at(-1)!.body).length).toBeLessThan(200_000);
  });

  it('SIGINT and --max-time stay responsive with a 250 KB prompt of one character', async () => {
    const e = scope.fresh();
    const llm = await scope.startLlm([
      { hang: true, text: 'thinking' },
      { hang: true, text: 'thinking' },
    ]);
    let child: ChildProcess | undefined;
    const t0 = Date.now();
    const run = runCli([...llmFlags(llm.url)], e.env, { stdin: 'b'.repeat(250_000), onSpawn: (c) => (child = c) });
    while (llm.requests.length === 0 && Date.now() - t0 < 15_000) await new Promise((r) => setTimeout(r, 50));
    const t1 = Date.now();
    child!.kill('SIGINT');
    const r = await run;
    expect(r.code).toBe(130);
    expect(Date.now() - t1).toBeLessThan(5_000);
    const t2 = Date.now();
    const m = await runCli(['--max-time', '2', ...llmFlags(llm.url)], e.env, { stdin: 'b'.repeat(250_000) });
    expect(Date.now() - t2).toBeLessThan(10_000);
    expect(m.stderr).not.toMatch(/internal error/);
  });
});

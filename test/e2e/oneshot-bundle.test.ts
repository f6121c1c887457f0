/**
 * Agent runs on the one-file bundle (dist/core.cjs, src/boot/): the built CLI routes a one-shot
 * there, runs it from its V8 code cache once a run has written one, and answers exactly as the
 * code-split build does (GNS3_COPILOT_CODE_CACHE=off).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { fakeLlmServers } from '../helpers/fake-llm.js';
import { commandCall } from '../helpers/tool-calls.js';
import { cliEnv, llmFlags, runCli } from './oneshot-cli.js';
import { parseJsonResult } from './oneshot-schema.js';

const env = cliEnv();
afterAll(() => env.cleanup());
const startLlm = fakeLlmServers();

const REPORT = { GNS3_COPILOT_CODE_CACHE: 'report' };
const OFF = { GNS3_COPILOT_CODE_CACHE: 'off' };

describe('one-shot on the bundle', () => {
  it('runs from the code cache after a first run wrote it, and answers as the code-split build does', async () => {
    const turns = (tag: string) => [
      { when: tag, text: 'Checking.', tool_calls: [commandCall('R1', ['show version'], `${tag}-c1`)] },
      { when: tag, text: `${tag}: R1 could not be reached.` },
    ];
    const llm = await startLlm([...turns('first'), ...turns('second'), ...turns('modules')]);
    const run = (tag: string, extra: NodeJS.ProcessEnv) =>
      runCli(['-p', `${tag}: check R1`, '--json', ...llmFlags(llm.url)], { ...env.env, ...extra });

    const first = await run('first', REPORT);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/^code cache: (cold|used) \(/m);
    // the first run (or another one before it) left a cache this run fits
    const second = await run('second', REPORT);
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(/^code cache: used \(.*-run\.v8\)$/m);
    const modules = await run('modules', OFF);
    expect(modules.code).toBe(0);
    expect(modules.stderr).not.toContain('code cache');

    const shape = (stdout: string, tag: string) => {
      const j = parseJsonResult(stdout);
      return {
        response: j.response.replace(tag, 'TAG'),
        tool_calls: j.tool_calls.map((c) => ({ name: c.name, args: c.args })),
        llm_calls: j.stats.llm_calls,
        stopped_reason: j.stopped_reason,
        error: j.error,
        mode: j.mode,
      };
    };
    expect(shape(second.stdout, 'second')).toEqual(shape(modules.stdout, 'modules'));
    expect(shape(first.stdout, 'first')).toEqual(shape(modules.stdout, 'modules'));
  });

  it('--estimate has its own cache; a usage error is the same one line and exit code on both builds', async () => {
    const llm = await startLlm([]);
    const estimate = (extra: NodeJS.ProcessEnv) =>
      runCli(['-p', 'how big?', '--estimate', '--json', ...llmFlags(llm.url)], { ...env.env, ...extra });
    expect((await estimate(REPORT)).code).toBe(0);
    const again = await estimate(REPORT);
    expect(again.stderr).toMatch(/^code cache: used \(.*-estimate\.v8\)$/m);
    const off = await estimate(OFF);
    expect(JSON.parse(again.stdout)).toEqual(JSON.parse(off.stdout));
    expect(llm.requests).toHaveLength(0);

    const bad = (extra: NodeJS.ProcessEnv) => runCli(['-p', 'x', '--json', '--stream-json'], { ...env.env, ...extra });
    const [b, m] = [await bad({}), await bad(OFF)];
    expect(b.code).toBe(2);
    expect([b.code, b.stderr, b.stdout]).toEqual([m.code, m.stderr, m.stdout]);
  });
});

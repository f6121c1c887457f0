/**
 * The built CLI: agent mode (--agent-mode, AGENT_MODE) and tree settings errors are one line
 * and exit 2 before any LLM call; the flag wins over the environment; a resumed tree keeps its
 * mode and prints a notice.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fakes/llm/server.js';
import { cliEnv, llmFlags, runCli } from './oneshot-cli.js';
import { parseJsonResult } from './oneshot-schema.js';

const env = cliEnv();
let llm: FakeLlm | undefined;
afterAll(async () => {
  await llm?.close();
  env.cleanup();
});

describe('tree settings on the command line', () => {
  it('bad values are one line, exit 2, no LLM call; the stored mode wins on resume with a notice', async () => {
    llm = await startFakeLlm([{ text: 'first answer' }, { text: 'second answer' }]);
    const flags = llmFlags(llm.url);
    const bad = [
      [['--max-parallel-children', '3'], {}, 'error: --max-parallel-children: must be an integer 1..2 (got 3)'],
      [['--child-execution-mode', 'fast'], {}, 'error: --child-execution-mode: must be one of sequential|parallel (got fast)'],
      [['--agent-mode', 'tree'], {}, 'error: --agent-mode: must be one of flat|recursive (got tree)'],
      [[], { AGENT_MODE: 'tree' }, 'error: AGENT_MODE: must be one of flat|recursive (got tree)'],
      [
        [],
        { AGENT_MODE: 'recursive', AGENT_MAX_LLM_CALLS: '1' },
        'error: agent_budget: reserved_final_calls must be less than max_llm_calls (1 >= 1; env AGENT_RESERVED_FINAL_CALLS, AGENT_MAX_LLM_CALLS)',
      ],
      [[], { AGENT_RECURSION_ENABLED: '1' }, 'error: AGENT_RECURSION_ENABLED was removed; use AGENT_MODE=recursive'],
      [
        [],
        { AGENT_MODE: 'recursive', AGENT_MAX_TOTAL_COST_USD: '-1' },
        'error: AGENT_MAX_TOTAL_COST_USD must be a positive number (got "-1")',
      ],
    ] as const;
    // each refusal is its own process and reads nothing another writes: they run side by side
    const refused = await Promise.all(bad.map(([args, extra]) => runCli(['-p', 'hi', ...flags, ...args], { ...env.env, ...extra })));
    expect(refused.map((r) => [r.code, r.stderr.trim()])).toEqual(bad.map(([, , line]) => [2, line]));
    expect(llm.requests).toHaveLength(0);

    // the flag wins over the environment
    const first = await runCli(['-p', 'hi', '--json', '--agent-mode', 'recursive', ...flags], { ...env.env, AGENT_MODE: 'flat' });
    expect(first.code).toBe(0);
    expect(parseJsonResult(first.stdout).resource_usage).toMatchObject({ agents: 1, llm_calls: 2 }); // the answer and the title
    const again = await runCli(['-p', 'again', '-c', '--json', ...flags], { ...env.env, AGENT_MODE: 'legacy' });
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(
      /^notice: agent mode flat was not applied: session [0-9a-f]{8} keeps its agent mode recursive, fixed when it was created$/m,
    );
    expect(parseJsonResult(again.stdout).resource_usage).toMatchObject({ llm_calls: 3 }); // the title is made once
  }, 90_000);
});

/**
 * The per-session lease between two real CLI processes, RACES times: one resume
 * runs, the other is refused naming the holder's pid; then --fork on the
 * command line. The winner's LLM answer is held until the loser has exited, so
 * the lease is provably held while the loser starts, without a guessed delay.
 */
import { afterAll, expect, it } from 'vitest';
import { join } from 'node:path';
import { startFakeLlm } from '../fakes/llm/server.js';
import { SessionStore } from '../../src/sessions/store.js';
import { toTranscript } from '../../src/sessions/transcript.js';
import { cliEnv, llmFlags, runCli, type CliResult } from '../e2e/oneshot-cli.js';

/** each race starts both processes at once; which one wins varies, and every race must end 0/1 */
const RACES = 8;
const e = cliEnv();
afterAll(() => e.cleanup());

it(`two processes resuming one session at once: one runs, the other exits 1 naming the pid (${RACES} runs)`, async () => {
  const llm = await startFakeLlm([{ text: 'seed' }], { title: 'Lease race' });
  try {
    const seed = await runCli(['-p', 'seed', '--json', ...llmFlags(llm.url)], e.env);
    expect(seed.code).toBe(0);
    const id = (JSON.parse(seed.stdout) as { session_id: string }).session_id;
    let turns = 1;
    for (let i = 0; i < RACES; i++) {
      // the winner's answer waits until one of the two has exited (the refused one);
      // the timer only frees a run whose loser never exits, which then fails below
      let release!: () => void;
      const hold = new Promise<void>((r) => (release = r));
      const safety = setTimeout(release, 25_000);
      llm.push({ text: `run ${i}`, hold });
      const runs = [0, 1].map((k) =>
        runCli(['-p', `run ${i}.${k}`, '-r', id, ...llmFlags(llm.url)], e.env, { timeoutMs: 30_000 }).finally(release),
      );
      const [a, b] = (await Promise.all(runs)) as [CliResult, CliResult];
      clearTimeout(safety);
      const codes = [a.code, b.code].sort();
      expect(codes, `${a.stderr}\n${b.stderr}`).toEqual([0, 1]);
      const loser = a.code === 1 ? a : b;
      expect(loser.stderr).toMatch(/^.*session is in use by pid \d+; use --fork to branch it/m);
      expect(loser.stdout).toBe('');
      turns++;
      expect(llm.remaining()).toBe(0);
    }
    const store = await SessionStore.open(join(e.home, 'data', 'gns3-copilot'));
    const users = toTranscript(await store.messages(id)).filter((m) => m.role === 'user');
    expect(users).toHaveLength(turns);
    expect(store.get(id)!.message_count).toBe(turns * 2);
    store.close();
    // --fork on the command line continues a copy under a new id
    llm.push({ text: 'on the branch' });
    const forked = await runCli(['-p', 'branch off', '-r', id, '--fork', '--json', ...llmFlags(llm.url)], e.env);
    expect(forked.code, forked.stderr).toBe(0);
    const forkId = (JSON.parse(forked.stdout) as { session_id: string }).session_id;
    expect(forkId).not.toBe(id);
    const check = await SessionStore.open(join(e.home, 'data', 'gns3-copilot'));
    expect((await check.messages(forkId)).length).toBe(turns * 2 + 2);
    expect((await check.messages(id)).length).toBe(turns * 2);
    check.close();
  } finally {
    await llm.close();
  }
}, 600_000);

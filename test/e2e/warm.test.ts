/**
 * Warm one-shots (GNS3_COPILOT_WARM, src/boot/warm/) on the built CLI against the fake LLM: the
 * first one-shot starts the user's warm process and the next ones run in it, with the output,
 * exit codes, environment, sessions.db and Ctrl-C of a process of their own; a run that reads
 * its stdin, or that a leaving warm process never started, runs in the client's process; a warm
 * process killed -9 is replaced, an idle one leaves, and a socket directory others may enter is
 * refused.
 * Each test has its own XDG_RUNTIME_DIR; every warm process the tests started is killed at the end.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fakeLlmServers } from '../helpers/fake-llm.js';
import { startFakeGns3 } from '../fakes/gns3/server.js';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { warmSocket } from '../../src/boot/warm/socket.js';
import { warmPids } from '../helpers/warm-pids.js';
import { cliEnv, llmFlags, runCli, sigintAtFirstContent, type CliEnv } from './oneshot-cli.js';
import { parseJsonResult, parseStreamJson } from './oneshot-schema.js';

const startLlm = fakeLlmServers();
const BUNDLE = fileURLToPath(new URL('../../dist/core.cjs', import.meta.url));
const made: string[] = [];
const envs: CliEnv[] = [];

/** A CLI environment with warm one-shots on (reporting how each went) and a runtime dir of its own. */
function warmEnv(extra: NodeJS.ProcessEnv = {}): CliEnv & { runtime: string } {
  const runtime = mkdtempSync(join(tmpdir(), 'gc-warm-run-'));
  made.push(runtime);
  const e = cliEnv({ GNS3_COPILOT_WARM: 'report', XDG_RUNTIME_DIR: runtime, GNS3_COPILOT_WARM_IDLE_S: '120', ...extra });
  envs.push(e);
  return { ...e, runtime };
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(what: string, ok: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

afterAll(async () => {
  for (const runtime of made) for (const pid of warmPids(runtime)) if (alive(pid)) process.kill(pid, 'SIGTERM');
  for (const runtime of made) for (const pid of warmPids(runtime)) await until(`warm process ${pid} to leave`, () => !alive(pid));
  for (const runtime of made) rmSync(runtime, { recursive: true, force: true });
  for (const e of envs) e.cleanup();
});

const STARTED = 'started (this run in its own process)';

/** Waits until a warm process other than `not` listens in `runtime` (its pid file is written once it does); its pid. */
async function listening(runtime: string, not?: number): Promise<number> {
  let pid: number | undefined;
  await until('the warm process to listen', () => (pid = warmPids(runtime).find((p) => p !== not)) !== undefined);
  return pid!;
}
const warmLine = (stderr: string) => /^warm: (.*)$/m.exec(stderr)?.[1];
const withoutWarmLine = (stderr: string) => stderr.replace(/^warm: .*\n/m, '');

describe('warm one-shots', () => {
  it('the first one-shot starts the warm process (and runs in its own), the next run in it, and each answers as a process of its own', async () => {
    const e = warmEnv();
    const llm = await startLlm([{ text: 'first answer' }, { text: 'second answer' }, { text: 'third answer' }]);
    const first = await runCli(['-p', 'one', '--json', ...llmFlags(llm.url)], e.env);
    expect([first.code, warmLine(first.stderr)]).toEqual([0, STARTED]);
    await listening(e.runtime);
    expect(parseJsonResult(first.stdout).response).toBe('first answer');
    const second = await runCli(['-p', 'two', ...llmFlags(llm.url)], e.env);
    expect([second.code, warmLine(second.stderr), second.stdout]).toEqual([0, 'used', 'second answer\n']);
    expect(warmPids(e.runtime)).toHaveLength(1);

    // failures: the same exit code, stderr line and JSON document with and without the warm process
    const cold = { ...e.env, GNS3_COPILOT_WARM: 'off' };
    for (const args of [
      ['-p', 'x', '--json', '--stream-json'],
      ['-p', 'x', '--bogus-flag', '--json'],
      ['-p', 'x', '--json', '--approve', 'ask'],
    ]) {
      const [w, c] = [await runCli([...args, ...llmFlags(llm.url)], e.env), await runCli([...args, ...llmFlags(llm.url)], cold)];
      expect(warmLine(w.stderr)).toBe('used');
      expect({ code: w.code, stdout: w.stdout, stderr: withoutWarmLine(w.stderr) }).toEqual({
        code: c.code,
        stdout: c.stdout,
        stderr: c.stderr,
      });
      expect(w.code).toBe(2);
    }
    // the event stream arrives whole, ending with its done event
    const stream = await runCli(['-p', 'three', '--stream-json', ...llmFlags(llm.url)], e.env);
    expect(stream.code).toBe(0);
    expect(parseStreamJson(stream.stdout).at(-1)).toMatchObject({ type: 'done' });
  });

  it('one-shots at once share it: each gets its own answer, environment and sessions.db', async () => {
    const a = warmEnv();
    // the same user in the same directory with another data directory: the same warm process
    const b = { ...a.env, XDG_DATA_HOME: join(a.home, 'data-b') };
    const tags = Array.from({ length: 8 }, (_, i) => `student-${i}`);
    const llm = await startLlm(tags.map((t) => ({ when: t, text: `${t} is answered` })));
    const runs = await Promise.all(tags.map((t, i) => runCli(['-p', `${t} asks`, '--json', ...llmFlags(llm.url)], i % 2 ? b : a.env)));
    expect(runs.map((r) => r.code)).toEqual(tags.map(() => 0));
    expect(runs.map((r) => parseJsonResult(r.stdout).response)).toEqual(tags.map((t) => `${t} is answered`));
    expect(warmPids(a.runtime)).toHaveLength(1);
    const listed = async (env: NodeJS.ProcessEnv) =>
      (JSON.parse((await runCli(['sessions', 'list', '--json'], env)).stdout) as { sessions: { id: string }[] }).sessions
        .map((s) => s.id)
        .sort();
    const ids = runs.map((r) => parseJsonResult(r.stdout).session_id);
    expect(await listed(a.env)).toEqual(ids.filter((_, i) => i % 2 === 0).sort());
    expect(await listed(b)).toEqual(ids.filter((_, i) => i % 2 === 1).sort());
  });

  it('Ctrl-C reaches the run in the warm process: exit 130, the run stored, --continue goes on', async () => {
    const e = warmEnv();
    const llm = await startLlm([{ text: 'warming up' }, { text: 'a long streamed answer', hang: true }, { text: 'after the interrupt' }]);
    expect(warmLine((await runCli(['-p', 'warm up', ...llmFlags(llm.url)], e.env)).stderr)).toBe(STARTED);
    await listening(e.runtime);
    const r = await runCli(['-p', 'long one', '--stream-json', ...llmFlags(llm.url)], e.env, { onSpawn: sigintAtFirstContent });
    expect(r.code).toBe(130);
    expect(warmLine(r.stderr)).toBe('used');
    expect(r.stderr).toContain('interrupted: stopping');
    expect(parseStreamJson(r.stdout).at(-1)).toMatchObject({ type: 'done', stopped_reason: 'aborted' });
    const next = await runCli(['-p', 'go on', '--json', '-c', ...llmFlags(llm.url)], e.env);
    expect([next.code, warmLine(next.stderr)]).toEqual([0, 'used']);
    expect(parseJsonResult(next.stdout).response).toBe('after the interrupt');
  });

  it('a command line that reads its stdin after all goes back to its own process', async () => {
    const e = warmEnv();
    const gns3 = await startFakeGns3({ api: 'v2' });
    try {
      // `-p` is the project's name here, and the prompt is piped: only the client's process has that stdin
      gns3.addProject({ name: '-p' });
      const llm = await startLlm([{ text: 'warming up' }, { text: 'piped answer' }]);
      expect(warmLine((await runCli(['-p', 'warm up', ...llmFlags(llm.url)], e.env)).stderr)).toBe(STARTED);
      await listening(e.runtime);
      const r = await runCli(['--server', gns3.url, '--project', '-p', ...llmFlags(llm.url)], e.env, { stdin: 'the piped prompt' });
      expect([r.code, r.stdout]).toEqual([0, 'piped answer\n']);
      expect(r.stderr).toMatch(/^warm: used\nwarm: local \(handed back: the run needs this process\)\n/);
      expect(JSON.stringify(llm.requests.at(-1)!.body)).toContain('the piped prompt');
    } finally {
      await gns3.close();
    }
  });

  it('a warm process killed -9 is replaced by the next one-shot; an idle one leaves by itself', async () => {
    // idle 5 s: long enough for the next one-shot to start on a busy machine, short enough to wait out
    const e = warmEnv({ GNS3_COPILOT_WARM_IDLE_S: '5' });
    const llm = await startLlm(['one', 'two', 'three', 'four'].map((text) => ({ text })));
    expect(warmLine((await runCli(['-p', 'a', ...llmFlags(llm.url)], e.env)).stderr)).toBe(STARTED);
    const killed = await listening(e.runtime);
    expect(warmLine((await runCli(['-p', 'b', ...llmFlags(llm.url)], e.env)).stderr)).toBe('used');
    process.kill(killed, 'SIGKILL');
    await until('the killed warm process to be gone', () => !alive(killed));
    // its socket file is still there, and nobody answers on it
    const again = await runCli(['-p', 'c', ...llmFlags(llm.url)], e.env);
    expect([again.code, warmLine(again.stderr), again.stdout]).toEqual([0, STARTED, 'three\n']);
    // the killed one's pid file stays until the new one writes its own
    const replacement = await listening(e.runtime, killed);
    const after = await runCli(['-p', 'd', ...llmFlags(llm.url)], e.env);
    expect([after.code, warmLine(after.stderr), after.stdout]).toEqual([0, 'used', 'four\n']);
    await until('the idle warm process to leave', () => !alive(replacement));
    expect(readdirSync(join(e.runtime, 'gns3-copilot')).filter((f) => !f.endsWith('.starting'))).toEqual([]);
  });

  it('a warm process that closes before the run started (it was leaving) leaves the run to the client', async () => {
    const e = warmEnv();
    const path = warmSocket(BUNDLE, e.env, e.home, [])!; // the CLI's node runs without flags
    const leaving = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => leaving.listen(path, resolve));
    try {
      const llm = await startLlm([{ text: 'answered here' }]);
      const r = await runCli(['-p', 'x', ...llmFlags(llm.url)], e.env);
      expect([r.code, r.stdout]).toEqual([0, 'answered here\n']);
      expect(r.stderr).toMatch(/^warm: used\nwarm: local \(the warm process left before the run started\)\n/);
    } finally {
      await new Promise((resolve) => leaving.close(resolve));
    }
  });

  it('with no private directory for the socket, or one too deep for a socket, the one-shot runs in its own process', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'gc-warm-tmp-'));
    made.push(tmp);
    const open = join(tmp, `gns3-copilot-${process.getuid!()}`);
    mkdirSync(open);
    chmodSync(open, 0o755);
    const deep = join(tmp, 'd'.repeat(60), 'e'.repeat(60));
    mkdirSync(deep, { recursive: true, mode: 0o700 });
    const llm = await startLlm([{ text: 'answered here' }, { text: 'and here' }]);
    for (const [extra, why, answer] of [
      [{ TMPDIR: tmp }, 'no private socket directory', 'answered here'],
      [{ XDG_RUNTIME_DIR: deep }, 'socket path longer than 107 bytes', 'and here'],
    ] as const) {
      const e = cliEnv({ GNS3_COPILOT_WARM: 'report', ...extra });
      envs.push(e);
      const r = await runCli(['-p', 'x', ...llmFlags(llm.url)], e.env);
      expect([r.code, warmLine(r.stderr), r.stdout]).toEqual([0, `local (${why})`, `${answer}\n`]);
    }
    expect(readdirSync(open)).toEqual([]);
  });
});

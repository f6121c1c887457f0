/**
 * `gns3-copilot sessions stop` from a second process: the built CLI runs a recursive
 * tree (fake LLM over HTTP, real SQLite) while another CLI process writes a stop request
 * that the running one takes. A sub-agent's stop ends it and its subtree, its sibling and
 * the root go on; a session's stop ends the request (exit 130). Bad targets are exit 2.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import type { FakeLlm } from '../fakes/llm/server.js';
import { fakeLlmServers } from '../helpers/fake-llm.js';
import { BIN, cliEnv, llmFlags, runCli, type CliResult } from './oneshot-cli.js';
import { sawChildCall, slowAndFastChildren } from '../agent/tree/helpers.js';

const env = cliEnv({ AGENT_MODE: 'recursive' });
const startLlm = fakeLlmServers();
afterAll(() => env.cleanup());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const dbPath = () => join(env.home, 'data', 'gns3-copilot', 'sessions.db');

interface Running {
  /** stream-json events so far */
  events: Record<string, unknown>[];
  done: Promise<CliResult>;
}

/** The one-shot CLI with --stream-json, its events read as they come. */
function startRun(llm: FakeLlm, prompt: string, extra: string[] = []): Running {
  const child = spawn(process.execPath, [BIN, '-p', prompt, '--stream-json', ...llmFlags(llm.url), ...extra], {
    env: env.env,
    cwd: env.home,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: Record<string, unknown>[] = [];
  let stdout = '';
  let stderr = '';
  let partial = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    partial += d.toString();
    const lines = partial.split('\n');
    partial = lines.pop()!;
    for (const l of lines) if (l.trim()) events.push(JSON.parse(l) as Record<string, unknown>);
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<CliResult>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  void done.then(() => clearTimeout(timer));
  return { events, done };
}

async function until<T>(what: string, f: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = f();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** The tree's nodes as the running process stored them. */
function nodes(rootId: string): { id: string; goal: string; status: string }[] {
  const db = new Sqlite(dbPath(), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT id, goal, status FROM agent_nodes WHERE root_id = ? ORDER BY rowid').all(rootId) as {
      id: string;
      goal: string;
      status: string;
    }[];
  } finally {
    db.close();
  }
}

const sessionOf = (r: Running) => r.events.find((e) => e.type === 'init')?.session_id as string | undefined;

describe('sessions stop from another process', () => {
  it('--agent stops one sub-agent (within 2 s); its sibling and the root go on', async () => {
    const { script, release } = slowAndFastChildren('root answer with the FAST report');
    const llm = await startLlm(script);
    const run = startRun(llm, 'split the work', ['--child-execution-mode', 'parallel', '--max-parallel-children', '2']);
    try {
      const sid = await until('init', () => sessionOf(run));
      await until('both children calling the model', () => sawChildCall(llm, 'SLOW part') && sawChildCall(llm, 'FAST part'));
      const slow = nodes(sid).find((n) => n.goal === 'SLOW part')!;
      const stop = await runCli(['sessions', 'stop', sid.slice(0, 8), '--agent', slow.id.slice(0, 8)], env.env);
      expect(stop.stderr).toBe('');
      expect(stop.code).toBe(0);
      expect(stop.stdout.trim()).toBe(`stopped sub-agent ${slow.id.slice(0, 8)} of session ${sid.slice(0, 8)} and its sub-agents`);
      // taken by the running process: the sub-agent ends within 2 s, its sibling still runs
      const stoppedAt = Date.now();
      await until('the stopped sub-agent to end', () => nodes(sid).find((n) => n.id === slow.id)!.status === 'stopped', 2_000);
      expect(Date.now() - stoppedAt).toBeLessThan(2_000);
      expect(nodes(sid).find((n) => n.goal === 'FAST part')!.status).toBe('running');
      release();
      const r = await run.done;
      expect(r.code).toBe(0);
      expect(nodes(sid).map((n) => [n.goal, n.status])).toEqual([
        ['SLOW part', 'stopped'],
        ['FAST part', 'completed'],
      ]);
      const notice = run.events.find((e) => e.type === 'notice' && String(e.message).includes('sessions stop'));
      expect(notice?.message).toBe(`sub-agent ${slow.id.slice(0, 8)} and its subtree stopped by \`sessions stop\` from another terminal`);
      expect(run.events.find((e) => e.type === 'tool_end' && e.id === 'split')).toMatchObject({ status: 'partial' });
      expect(run.events.at(-1)).toMatchObject({ type: 'done', stopped_reason: 'done' });
      expect(
        run.events
          .filter((e) => e.type === 'content')
          .map((e) => e.delta)
          .join(''),
      ).toContain('root answer with the FAST report');

      // the sub-agent has ended: a second stop is refused at once, exit 2
      const again = await runCli(['sessions', 'stop', sid, '--agent', slow.id], env.env);
      expect(again.code).toBe(2);
      expect(again.stderr.trim()).toBe(`error: sub-agent ${slow.id.slice(0, 8)} is not running (stopped)`);
    } finally {
      release();
      await run.done;
    }
  }, 120_000);

  it('without --agent the whole request stops within 2 s (exit 130); a session with nothing running is exit 2', async () => {
    const llm = await startLlm([
      { tool_calls: [{ id: 'one', name: 'agent', args: { task_brief: { goal: 'SLOW part' } } }] },
      { when: '## Goal\\nSLOW part', text: 'thinking', hang: true },
    ]);
    const run = startRun(llm, 'check everything');
    const sid = await until('init', () => sessionOf(run));
    await until('the child calling the model', () => sawChildCall(llm, 'SLOW part'));
    const stop = await runCli(['sessions', 'stop', sid], env.env);
    expect(stop.stderr).toBe('');
    expect(stop.code).toBe(0);
    expect(stop.stdout.trim()).toBe(`stopped session ${sid.slice(0, 8)}`);
    const stoppedAt = Date.now();
    const r = await Promise.race([run.done, sleep(2_000).then(() => undefined)]);
    expect(r, 'the stopped process did not end within 2 s').toBeDefined();
    expect(Date.now() - stoppedAt).toBeLessThan(2_000);
    expect(r!.code).toBe(130);
    expect(run.events.at(-1)).toMatchObject({ type: 'done', stopped_reason: 'aborted' });
    expect(run.events.some((e) => e.type === 'notice' && e.message === 'stopped by `sessions stop` from another terminal')).toBe(true);

    // nothing runs it now: the request is withdrawn after the wait, exit 2
    const idle = await runCli(['sessions', 'stop', sid], env.env);
    expect(idle.code).toBe(2);
    expect(idle.stderr.trim()).toBe(
      `error: session ${sid.slice(0, 8)} has no running request to stop (nothing took the stop request within 5 s)`,
    );
    const db = new Sqlite(dbPath(), { readonly: true });
    expect(db.prepare('SELECT COUNT(*) AS n FROM tree_stop_requests').get()).toEqual({ n: 0 });
    db.close();

    for (const [args, line] of [
      [['sessions', 'stop', 'nosuch'], 'error: no session "nosuch" (see `gns3-copilot sessions list`)'],
      [
        ['sessions', 'stop', sid, '--agent', 'ffffffff'],
        `error: no sub-agent "ffffffff" in session ${sid.slice(0, 8)} (see /tree or \`sessions show\`)`,
      ],
    ] as const) {
      const bad = await runCli([...args], env.env);
      expect(bad.code).toBe(2);
      expect(bad.stderr.trim()).toBe(line);
    }
  }, 120_000);
});

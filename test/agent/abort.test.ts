/**
 * Abort (AbortSignal, mid-stream and mid-tool) and a hard kill (-9) mid-turn: the
 * checkpointed history must stay valid and the next turn must work with nothing lost.
 */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FakeLlm } from '../fakes/llm/server.js';
import { collect, ofType, session, showCall, tempDir, testSettings, testTools, text, type ToolLog, useFakeLlm } from './helpers.js';
import { SessionStore } from '../../src/sessions/store.js';

const { tmp, startLlm } = useFakeLlm('gc-abort-');
let llm: FakeLlm | undefined;

function roles(l: FakeLlm, i: number): string[] {
  return l.requests.filter((r) => r.purpose === null)[i]!.body.messages.map((m) => m.role);
}

describe('abort', () => {
  it('abort mid-stream cancels the LLM stream; the next turn works', async () => {
    llm = await startLlm([{ text: 'Streaming a long answer', hang: true }, { text: 'Second answer.' }]);
    const s = await session(testSettings(llm.url, tmp.dir), testTools({ calls: [] }));
    const ac = new AbortController();
    const events = [];
    for await (const e of s.send('tell me', { signal: ac.signal })) {
      events.push(e);
      if (e.type === 'content' && e.delta) ac.abort();
    }
    const done = ofType(events, 'done')[0]!;
    expect(done.stopped_reason).toBe('aborted');
    expect(ofType(events, 'error')[0]!.error.type).toBe('aborted');
    const ev2 = await collect(s.send('and now?'));
    expect(ofType(ev2, 'done')[0]!.stopped_reason).toBe('done');
    expect(text(ev2)).toContain('Second answer.');
    // history sent on turn 2: system, user, partial assistant, user
    expect(roles(llm, 1)).toEqual(['system', 'user', 'assistant', 'user']);
    await s.close();
  });

  it('abort mid-tool gives the pending call an aborted result; resume works', async () => {
    llm = await startLlm([{ tool_calls: [showCall('R1', 't1')] }, { text: 'Resumed fine.' }]);
    const log: ToolLog = { calls: [] };
    const s = await session(testSettings(llm.url, tmp.dir), testTools(log, { slowMs: 30_000 }));
    const ac = new AbortController();
    const events = [];
    const t0 = Date.now();
    for await (const e of s.send('slow one', { signal: ac.signal })) {
      events.push(e);
      if (e.type === 'tool_start') setTimeout(() => ac.abort(), 50);
    }
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(ofType(events, 'tool_end')[0]).toMatchObject({ id: 't1', status: 'aborted' });
    expect(ofType(events, 'done')[0]!.stopped_reason).toBe('aborted');
    const id = s.id;
    await s.close();

    // resume by id in a new session object (as `--resume <id>` does)
    const s2 = await session(testSettings(llm.url, tmp.dir), testTools(log), { sessionId: id });
    expect(s2.id).toBe(id);
    expect((await s2.transcript()).map((e) => [e.role, e.status ?? ''])).toEqual([
      ['user', ''],
      ['assistant', ''],
      ['tool', 'aborted'],
    ]);
    const ev2 = await collect(s2.send('continue please'));
    expect(text(ev2)).toContain('Resumed fine.');
    const sent = llm.requests.filter((r) => r.purpose === null)[1]!.body.messages;
    expect(sent.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
    expect(String(sent[3]!.content)).toContain('aborted');
    await s2.close();
  });

  it('kill -9 of the process mid-turn, then --continue works with nothing lost', async () => {
    const dir = tempDir('gc-kill-');
    llm = await startLlm([{ text: 'Checking R1.', tool_calls: [showCall('R1', 'k1')] }, { text: 'Picked up where we left off.' }]);
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('./fixtures/child-turn.ts', import.meta.url)), llm.url, dir.dir, 'check R1 routes'],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
        cwd: fileURLToPath(new URL('../..', import.meta.url)),
      },
    );
    await new Promise<void>((resolve, reject) => {
      let buf = '';
      child.stdout.on('data', (d: Buffer) => {
        buf += d.toString();
        if (buf.includes('TOOL_STARTED')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`child exited early (${code}): ${buf}`)));
    });
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));

    const s = await session(testSettings(llm.url, dir.dir), testTools({ calls: [] }), { continueLatest: true });
    expect(s.resumed).toBe(true);
    const ev = await collect(s.send('go on'));
    expect(ofType(ev, 'error')).toHaveLength(0);
    expect(text(ev)).toContain('Picked up where we left off.');
    const sent = llm.requests.filter((r) => r.purpose === null)[1]!.body.messages;
    expect(sent.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
    expect(sent[1]!.content).toBe('check R1 routes');
    expect(String(sent[3]!.content)).toContain('interrupted');
    await s.close();
    const store = await SessionStore.open(dir.dir);
    const msgs = await store.messages(s.id);
    expect(msgs.map((m) => m.getType())).toEqual(['human', 'ai', 'tool', 'human', 'ai']);
    store.close();
    dir.cleanup();
  });
});

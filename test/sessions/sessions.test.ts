/** Sessions: SQLite store, titles, usage, AGENT_MODE, and the `sessions` subcommand. */
import { describe, expect, it, vi } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FakeLlm } from '../fakes/llm/server.js';
import { startFakeGns3 } from '../fakes/gns3/server.js';
import { collect, ofType, session, showCall, tempDir, testSettings, testTools, useFakeLlm } from '../agent/helpers.js';
import { SessionStore, cleanTitle, fallbackTitle } from '../../src/sessions/store.js';
import { sessionsCommand } from '../../src/commands/sessions.js';
import { z } from 'zod';
import { defineTool } from '../../src/tools/types.js';
import { batchOutcome } from '../../src/tools/batch.js';
import { assertNoRemovedAgentFlags, parseAgentMode, storedAgentMode } from '../../src/config/agent-mode.js';
import { UsageError } from '../../src/errors.js';

const { tmp, startLlm } = useFakeLlm('gc-sessions-');
let llm: FakeLlm | undefined;

async function captureStdout(fn: () => Promise<number>): Promise<{ code: number; out: string }> {
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => {
    out += String(s);
    return true;
  });
  try {
    const code = await fn();
    return { code, out };
  } finally {
    spy.mockRestore();
  }
}

describe('session store', () => {
  it('creates one SQLite file in WAL mode holding checkpoints and the sessions table', async () => {
    const d = tempDir('gc-store-');
    llm = await startLlm([{ text: 'hello there' }], { title: 'Greeting the copilot' });
    const s = await session(testSettings(llm.url, d.dir), []);
    await collect(s.send('hello'));
    await s.close();
    const file = join(d.dir, 'sessions.db');
    expect(existsSync(file)).toBe(true);
    const store = await SessionStore.open(d.dir);
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(Number(store.db.pragma('busy_timeout', { simple: true }))).toBeGreaterThanOrEqual(5000);
    const tables = (store.db.prepare("SELECT name FROM sqlite_master WHERE type='table'").all() as { name: string }[]).map((t) => t.name);
    expect(tables).toEqual(expect.arrayContaining(['sessions', 'checkpoints', 'writes']));
    store.close();
    d.cleanup();
  });

  it('generates a title after the first turn and stores token usage', async () => {
    llm = await startLlm(
      [
        { tool_calls: [showCall('R1')], usage: { prompt_tokens: 100, completion_tokens: 10 } },
        { text: 'R1 is up.', usage: { prompt_tokens: 150, completion_tokens: 20 } },
        { text: 'again', usage: { prompt_tokens: 10, completion_tokens: 1 } },
      ],
      {
        title: '"OSPF adjacency check on R1 and its neighbours, very long title"',
      },
    );
    const s = await session(testSettings(llm.url, tmp.dir), testTools({ calls: [] }));
    await collect(s.send('is R1 ok?'));
    let row = s.info()!;
    expect(row.title!.length).toBeLessThanOrEqual(40);
    expect(row.title).toMatch(/^OSPF adjacency check/);
    expect(row.llm_calls).toBe(3); // two answers and the title
    expect(row.input_tokens).toBeGreaterThanOrEqual(250);
    expect(row.output_tokens).toBeGreaterThanOrEqual(30);
    expect(row.total_tokens).toBe(row.input_tokens + row.output_tokens);
    expect(row.message_count).toBe(4);
    await collect(s.send('and now?'));
    row = s.info()!;
    expect(llm.requests.filter((r) => r.purpose === 'title')).toHaveLength(1); // only after the first turn
    expect(row.llm_calls).toBe(4);
    expect(row.message_count).toBe(6);
    await s.close();
  });

  it('falls back to the first 30 characters when title generation fails', async () => {
    llm = await startLlm([{ text: 'fine' }]);
    const s = await session(testSettings(llm.url, tmp.dir), []);
    // break only the title request: the server goes away once the answer has streamed
    const it = s.send('please check every router in the lab for OSPF problems');
    for await (const e of it) if (e.type === 'content') await llm.close().catch(() => undefined);
    expect(s.info()!.title).toBe('please check every router in t');
    await s.close();
  });

  it('title helpers', () => {
    expect(cleanTitle('Title: "Build a lab."')).toBe('Build a lab');
    expect(cleanTitle('x'.repeat(60)).length).toBe(40);
    expect(fallbackTitle('  short  ')).toBe('short');
  });

  it('agent mode words: flat, recursive, legacy read as flat, junk refused; AGENT_RECURSION_ENABLED refused', async () => {
    expect(parseAgentMode('flat')).toBe('flat');
    expect(parseAgentMode(' Legacy ')).toBe('flat');
    expect(parseAgentMode('recursive')).toBe('recursive');
    expect(parseAgentMode('fast')).toBeUndefined();
    expect(storedAgentMode('legacy')).toBe('flat');
    expect(storedAgentMode('recursive')).toBe('recursive');
    expect(() => assertNoRemovedAgentFlags({ AGENT_RECURSION_ENABLED: '1' })).toThrow(/AGENT_RECURSION_ENABLED/);
    llm = await startLlm([]);
    await expect(session(testSettings(llm.url, tmp.dir), [], { env: { AGENT_MODE: 'fast' } })).rejects.toThrow(UsageError);
  });

  it('the session row keeps mode and agent mode; --resume of an unknown id is a usage error', async () => {
    llm = await startLlm([{ text: 'a' }, { text: 'b' }]);
    const s = await session(testSettings(llm.url, tmp.dir, { mode: 'lab' }), []);
    await collect(s.send('one'));
    await s.close();
    const s2 = await session(testSettings(llm.url, tmp.dir), [], { sessionId: s.id.slice(0, 8) });
    expect(s2.id).toBe(s.id);
    expect(s2.mode).toBe('lab_automation_assistant');
    expect(s2.agentMode).toBe('flat');
    await s2.close();
    const s3 = await session(testSettings(llm.url, tmp.dir, { mode: 'inject' }), [], { sessionId: s.id });
    expect(s3.mode).toBe('troubleshooting_injection'); // an explicit non-default mode wins
    expect(s3.info()!.copilot_mode).toBe('troubleshooting_injection');
    await s3.close();
    await expect(session(testSettings(llm.url, tmp.dir), [], { sessionId: 'nope-nope' })).rejects.toThrow(/no session "nope-nope"/);
  });

  it('resuming reopens the session’s own project unless another one is asked for explicitly', async () => {
    const d = tempDir('gc-resume-project-');
    const gns3 = await startFakeGns3({ api: 'v2' });
    try {
      const idA = gns3.addProject({ name: 'labA' });
      const idB = gns3.addProject({ name: 'labB' });
      llm = await startLlm(['one', 'two', 'three', 'four', 'five'].map((t) => ({ text: t })));
      const settings = (project?: string) => testSettings(llm!.url, d.dir, { server: gns3.url, ...(project ? { project } : {}) });
      const projectOf = async (s: Awaited<ReturnType<typeof session>>, prompt: string) =>
        ofType(await collect(s.send(prompt)), 'init')[0]!.project_id;

      const first = await session(settings('labA'), []);
      expect(await projectOf(first, 'q1')).toBe(idA);
      await first.close();

      // GNS3_PROJECT / a config file now name labB: the resumed conversation stays on labA
      const byId = await session(settings('labB'), [], { sessionId: first.id });
      expect(await projectOf(byId, 'q2')).toBe(idA);
      expect(byId.info()!.project_name).toBe('labA');
      await byId.close();

      // --continue without any project still reopens labA (tools can reach its devices)
      const latest = await session(settings(), [], { continueLatest: true });
      expect(latest.id).toBe(first.id);
      expect(await projectOf(latest, 'q3')).toBe(idA);
      await latest.close();

      // an explicit --project moves the session to that project
      const moved = await session(settings('labB'), [], { sessionId: first.id, projectExplicit: true });
      expect(await projectOf(moved, 'q4')).toBe(idB);
      expect(moved.info()!.project_id).toBe(idB);
      await moved.close();
      const after = await session(settings(), [], { sessionId: first.id });
      expect(await projectOf(after, 'q5')).toBe(idB);
      await after.close();
    } finally {
      await gns3.close();
      d.cleanup();
    }
  });

  it('keeps every answer even when the server repeats completion ids', async () => {
    llm = await startLlm([{ text: 'first' }, { text: 'second' }], { fixedCompletionId: 'chatcmpl-same' });
    const s = await session(testSettings(llm.url, tmp.dir), []);
    await collect(s.send('one'));
    await collect(s.send('two'));
    expect((await s.transcript()).map((e) => e.content)).toEqual(['one', 'first', 'two', 'second']);
    await s.close();
  });

  it('prunes old checkpoints so long sessions do not grow quadratically; resume still sees everything', async () => {
    const d = tempDir('gc-prune-');
    llm = await startLlm(Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? { tool_calls: [showCall('R1')] } : { text: `answer ${i}` })));
    const s = await session(testSettings(llm.url, d.dir), testTools({ calls: [] }));
    for (let i = 0; i < 6; i++) await collect(s.send(`q${i}`));
    await s.close();
    const store = await SessionStore.open(d.dir);
    const n = (store.db.prepare('SELECT COUNT(*) AS n FROM checkpoints WHERE thread_id = ?').get(s.id) as { n: number }).n;
    expect(n).toBeLessThanOrEqual(4);
    expect((await store.messages(s.id)).length).toBe(24);
    store.close();
    llm.push({ text: 'still here' });
    const again = await session(testSettings(llm.url, d.dir), testTools({ calls: [] }), { sessionId: s.id });
    await collect(again.send('after pruning'));
    expect(llm.requests.filter((r) => r.purpose === null).at(-1)!.body.messages).toHaveLength(1 + 24 + 1);
    await again.close();
    d.cleanup();
  });

  it('two connections can work on the same file at once', async () => {
    const d = tempDir('gc-two-');
    const a = await SessionStore.open(d.dir);
    const b = await SessionStore.open(d.dir);
    const r1 = a.create({ copilot_mode: 'teaching_assistant', agent_mode: 'flat' });
    const r2 = b.create({ copilot_mode: 'lab_automation_assistant', agent_mode: 'flat' });
    a.recordRequest(r2.id, { message_count: 2, llm_calls: 1, input_tokens: 5, output_tokens: 1 });
    expect(b.get(r2.id)!.llm_calls).toBe(1);
    expect(a.list().total).toBe(2);
    expect(b.get(r1.id)).toBeDefined();
    a.close();
    b.close();
    d.cleanup();
  });
});

describe('sessions command', () => {
  it("show and export --format md print device output as the device printed it, with the tool's display line", async () => {
    const d = tempDir('gc-cmd-md-');
    llm = await startLlm([{ tool_calls: [showCall('R1')] }, { text: 'R1 has one route' }]);
    const route = 'Codes: K - kernel route, C - connected\nC>* 10.0.1.0/24 is directly connected, eth0, 00:01:02';
    const device = defineTool({
      name: 'execute_multiple_device_commands',
      description: 'Run show commands',
      risk: 'read',
      schema: z.object({ device_configs: z.array(z.object({ device_name: z.string(), commands: z.array(z.string()) })) }),
      // the real batch outcome: {"status","devices":[…]} and the display line
      run: async (args) =>
        batchOutcome(
          args.device_configs.map((c) => ({
            device_name: c.device_name,
            status: 'success' as const,
            results: c.commands.map((command) => ({ command, status: 'success', output: route, duration_ms: 3 })),
          })),
          {
            devices: args.device_configs.map((c) => ({
              device_name: c.device_name,
              status: 'success',
              results: c.commands.map((command) => ({ command, status: 'success', output: route, duration_ms: 3 })),
            })),
          },
          { noun: 'devices' },
        ),
    });
    const settings = testSettings(llm.url, d.dir);
    const s = await session(settings, [device]);
    await collect(s.send('routes on R1?'));
    await s.close();
    const expected = [
      '### Tool result: execute_multiple_device_commands (success) — 1 device ok',
      '',
      '**R1** (success)',
      '',
      '`R1# show ip route`',
      '```',
      'Codes: K - kernel route, C - connected',
      'C>* 10.0.1.0/24 is directly connected, eth0, 00:01:02',
      '```',
    ].join('\n');
    const shown = await captureStdout(() => sessionsCommand('show', [s.id], {}, settings));
    expect(shown.out).toContain(expected);
    expect(shown.out).not.toContain('\\n');
    const file = join(d.dir, 'export.md');
    await captureStdout(() => sessionsCommand('export', [s.id], { format: 'md', output: file }, settings));
    expect(readFileSync(file, 'utf8')).toContain(expected);
    d.cleanup();
  });

  it('list / show / rename / pin / unpin / export / delete', async () => {
    const d = tempDir('gc-cmd-');
    llm = await startLlm([{ text: 'first answer' }, { text: 'second answer' }], { title: 'Lab one' });
    const settings = testSettings(llm.url, d.dir);
    const s1 = await session(settings, []);
    await collect(s1.send('first question'));
    await s1.close();
    const s2 = await session({ ...settings, mode: 'lab_automation_assistant' }, []);
    await collect(s2.send('second question'));
    await s2.close();

    let r = await captureStdout(() => sessionsCommand('list', [], { json: true }, settings));
    expect(r.code).toBe(0);
    const listed = JSON.parse(r.out) as { sessions: { id: string; title: string }[]; total: number };
    expect(listed.total).toBe(2);
    expect(listed.sessions[0]!.id).toBe(s2.id); // newest first

    r = await captureStdout(() => sessionsCommand('list', [], { mode: 'lab', json: true }, settings));
    expect((JSON.parse(r.out) as { total: number }).total).toBe(1);
    r = await captureStdout(() => sessionsCommand('list', [], { limit: '1', offset: '1' }, settings));
    expect(r.out).toContain(s1.id.slice(0, 8));
    await expect(sessionsCommand('list', [], { limit: '0' }, settings)).rejects.toThrow(/--limit/);

    await captureStdout(() => sessionsCommand('pin', [s1.id.slice(0, 8)], {}, settings));
    r = await captureStdout(() => sessionsCommand('list', [], { json: true }, settings));
    expect((JSON.parse(r.out) as { sessions: { id: string; pinned: boolean }[] }).sessions[0]).toMatchObject({ id: s1.id, pinned: true });
    await captureStdout(() => sessionsCommand('unpin', [s1.id], {}, settings));

    await captureStdout(() => sessionsCommand('rename', [s1.id, 'My', 'OSPF', 'lab'], {}, settings));
    r = await captureStdout(() => sessionsCommand('show', [s1.id], { json: true }, settings));
    const shown = JSON.parse(r.out) as { session: { title: string }; messages: { role: string; content: string }[] };
    expect(shown.session.title).toBe('My OSPF lab');
    expect(shown.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(shown.messages[1]!.content).toBe('first answer');

    const file = join(d.dir, 'export.md');
    await captureStdout(() => sessionsCommand('export', [s1.id], { format: 'md', output: file }, settings));
    const md = readFileSync(file, 'utf8');
    expect(md).toContain('# My OSPF lab');
    expect(md).toContain('first question');
    r = await captureStdout(() => sessionsCommand('export', [s1.id], { format: 'json' }, settings));
    expect((JSON.parse(r.out) as { messages: unknown[] }).messages).toHaveLength(2);
    await expect(sessionsCommand('export', [s1.id], { format: 'pdf' }, settings)).rejects.toThrow(/--format/);

    await captureStdout(() => sessionsCommand('delete', [s1.id], { yes: true }, settings));
    r = await captureStdout(() => sessionsCommand('list', [], { json: true }, settings));
    expect((JSON.parse(r.out) as { total: number }).total).toBe(1);
    await expect(sessionsCommand('show', [s1.id], {}, settings)).rejects.toThrow(/no session/);
    const store = await SessionStore.open(d.dir);
    expect(await store.messages(s1.id)).toEqual([]);
    store.close();
    d.cleanup();
  });
});

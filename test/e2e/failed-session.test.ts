/**
 * A request that failed before any answer — the LLM server down — leaves a session with the
 * user's message and no reply; `sessions list` marks it failed (text and --json) instead of
 * showing an "(untitled)" conversation. The built CLI, the fake LLM over HTTP (started, then
 * stopped, for the failing request), the real sessions.db. A session that gets its answer later
 * is no longer failed; one a live process holds open is not failed yet. The TUI's session picker
 * shows the same mark.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeLlm } from '../fakes/llm/server.js';
import { fakeLlmServers } from '../helpers/fake-llm.js';
import { SessionStore } from '../../src/sessions/store.js';
import { SessionLease } from '../../src/sessions/lease.js';
import { createRealServices, type SessionOpener } from '../../src/ui/services.js';
import { sessionItem } from '../../src/ui/picker.js';
import { settingsSchema } from '../../src/config/schema.js';
import { nullLogger } from '../../src/log.js';
import { cliEnv, llmFlags, runCli } from './oneshot-cli.js';
import { parseJsonResult } from './oneshot-schema.js';

const env = cliEnv();
afterAll(() => env.cleanup());
const startLlm = fakeLlmServers();

interface Listed {
  id: string;
  title: string | null;
  message_count: number;
  failed: boolean;
}

async function listed(): Promise<{ json: Listed[]; text: string }> {
  const j = await runCli(['sessions', 'list', '--json'], env.env);
  expect(j.code).toBe(0);
  const t = await runCli(['sessions', 'list'], env.env);
  expect(t.code).toBe(0);
  return { json: (JSON.parse(j.stdout) as { sessions: Listed[] }).sessions, text: t.stdout };
}

const lineOf = (text: string, id: string) => text.split('\n').find((l) => l.startsWith(id.slice(0, 8))) ?? '';

describe('a session whose request failed before any answer', () => {
  it('is marked failed in sessions list until a request of it is answered', async () => {
    // a port where an LLM server was and is no more
    const gone = await startFakeLlm([]);
    const downUrl = gone.url;
    await gone.close();
    const failed = await runCli(['-p', 'is R1 up?', '--json', ...llmFlags(downUrl)], env.env);
    expect(failed.code).toBe(4);
    const f = parseJsonResult(failed.stdout);
    expect(f.error!.type).toBe('provider');
    const failedId = f.session_id!;

    const llm = await startLlm([{ text: 'R1 is up.' }, { text: 'R1 status' }, { text: 'Yes, still up.' }, { text: 'R1 again' }]);
    const answered = await runCli(['-p', 'is R1 up?', '--json', ...llmFlags(llm.url)], env.env);
    expect(answered.code).toBe(0);
    const answeredId = parseJsonResult(answered.stdout).session_id!;

    let l = await listed();
    expect(l.json.find((s) => s.id === failedId)).toMatchObject({ failed: true, title: null, message_count: 1 });
    expect(l.json.find((s) => s.id === answeredId)).toMatchObject({ failed: false });
    expect(lineOf(l.text, failedId)).toMatch(/\[failed: no answer\] \(untitled\)$/);
    expect(lineOf(l.text, answeredId)).not.toMatch(/failed/);
    // the TUI's session picker reads the same mark
    const tui = createRealServices(nullLogger, {} as SessionOpener);
    const picked = await tui.listSessions(settingsSchema.parse({ data_dir: join(env.home, 'data', 'gns3-copilot') }));
    expect(sessionItem(picked.find((s) => s.id === failedId)!).label).toBe('[failed: no answer] (untitled)');
    expect(sessionItem(picked.find((s) => s.id === answeredId)!).label).not.toMatch(/failed/);

    // held open by a live process (a TUI that may retry, a request running): not failed yet
    const store = await SessionStore.open(join(env.home, 'data', 'gns3-copilot'));
    const lease = SessionLease.acquire(store.db, failedId);
    try {
      l = await listed();
      expect(l.json.find((s) => s.id === failedId)!.failed).toBe(false);
      expect(lineOf(l.text, failedId)).not.toMatch(/failed/);
    } finally {
      lease.release();
      store.close();
    }
    expect((await listed()).json.find((s) => s.id === failedId)!.failed).toBe(true);

    // resumed with the LLM back: answered, no longer failed
    const resumed = await runCli(['-p', 'and now?', '-r', failedId, '--json', ...llmFlags(llm.url)], env.env);
    expect(resumed.code).toBe(0);
    l = await listed();
    expect(l.json.find((s) => s.id === failedId)!.failed).toBe(false);
    expect(lineOf(l.text, failedId)).not.toMatch(/failed/);
  }, 120_000);
});

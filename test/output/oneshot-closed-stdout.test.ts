/**
 * A one-shot piped into a reader that stops early (`gns3-copilot -p … | head -1`): the
 * reader closes our stdout while the request runs, and the next write fails with EPIPE.
 * That stops the printing, never the request: the answer, the LLM calls, the tokens and
 * the title are stored as for any request, and the exit code is the request's (0). The
 * order is forced, not raced: the model's second answer is held until the test has read
 * the first line and closed its end of the pipe. Built CLI, fake LLM over HTTP, a real
 * sessions.db.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { BIN, llmFlags } from '../e2e/oneshot-cli.js';
import { cliScope } from '../helpers/cli-scope.js';
import { SessionStore } from '../../src/sessions/store.js';

const scope = cliScope();

interface Exit {
  code: number | null;
  stderr: string;
}

it('a reader closing stdout mid-answer stops the printing; the request still ends and is stored with its usage and title, exit 0', async () => {
  const e = scope.fresh();
  let release!: () => void;
  const hold = new Promise<void>((r) => (release = r));
  const llm = await scope.startLlm(
    [
      { text: 'Looking at the FRR skills first.\n', tool_calls: [{ id: 'sk', name: 'device_skills', args: { platform: 'frr' } }] },
      { hold, text: 'FRR shows routes with show ip route.\nIt shows OSPF neighbours with show ip ospf neighbor.\n' },
    ],
    { title: 'FRR show commands' },
  );
  const safety = setTimeout(() => release(), 50_000);
  scope.onCleanup(() => clearTimeout(safety));
  const child = spawn(process.execPath, [BIN, '-p', 'which show commands does FRR have?', ...llmFlags(llm.url)], {
    env: e.env,
    cwd: e.home,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<Exit>((resolve) => child.on('close', (code) => resolve({ code, stderr })));
  // `head -1`: read the first line, then close our end of the pipe; only then may the model go on
  let seen = '';
  await new Promise<void>((resolve) => {
    const onData = (d: Buffer) => {
      seen += d.toString();
      if (!seen.includes('\n')) return;
      child.stdout.off('data', onData);
      child.stdout.destroy();
      resolve();
    };
    child.stdout.on('data', onData);
  });
  expect(seen).toBe('Looking at the FRR skills first.\n');
  release();
  const r = await exited;

  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).not.toMatch(/EPIPE|internal error/);
  expect(llm.requests.filter((q) => q.purpose === null)).toHaveLength(2);
  expect(llm.requests.some((q) => q.purpose === 'title')).toBe(true);
  const store = await SessionStore.open(join(e.home, 'data', 'gns3-copilot'));
  try {
    const [row] = store.list({ limit: 10 }).rows;
    expect(row).toMatchObject({ title: 'FRR show commands', message_count: 4 });
    expect(row!.llm_calls).toBeGreaterThanOrEqual(2);
    expect(row!.total_tokens).toBeGreaterThan(0);
    const messages = await store.messages(row!.id);
    expect(messages.map((m) => m.getType())).toEqual(['human', 'ai', 'tool', 'ai']);
    expect(messages[3]!.content).toBe('FRR shows routes with show ip route.\nIt shows OSPF neighbours with show ip ospf neighbor.\n');
  } finally {
    store.close();
  }
}, 120_000);

/**
 * Bad input a user meets outside a run: a damaged sessions.db is one line naming
 * the file and what to do (exit 2); every usage error of a command run with
 * --json / --stream-json puts a JSON document on stdout, whether it came from
 * parsing the flags, checking a value or opening the session; `config list`
 * warns about a secret-looking key in config.json as every other command does.
 */
import { describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { llmFlags, runCli } from '../e2e/oneshot-cli.js';
import { cliScope } from '../helpers/cli-scope.js';

const scope = cliScope({ GNS3_COPILOT_API_KEY: 'sk-test-usage-faults-000' });

describe('a damaged sessions.db', () => {
  it('is one line naming the file and telling to move it aside, exit 2, for a run and for sessions list', async () => {
    const e = scope.fresh();
    const dir = join(e.home, 'data', 'gns3-copilot');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'sessions.db');
    writeFileSync(file, Buffer.alloc(8192, 0x5a));
    const llm = await scope.startLlm([{ text: 'never' }]);
    for (const args of [
      ['-p', 'hi', ...llmFlags(llm.url)],
      ['sessions', 'list'],
    ]) {
      const r = await runCli(args, e.env);
      expect(r.code, r.stderr).toBe(2);
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toBe(
        `error: ${file} is not a usable sessions database (file is not a database): move it aside (mv "${file}" "${file}.broken") and run again; a new one is created`,
      );
    }
    expect(llm.requests.filter((q) => q.purpose === null)).toHaveLength(0);
  });
});

describe('usage errors with --json', () => {
  it('a bad flag, a bad value and an unknown session all print the one-shot result with error.type usage, exit 2', async () => {
    const e = scope.fresh();
    const llm = await scope.startLlm([{ text: 'never' }]);
    const cases = [
      ['-p', 'hi', '--json', '--no-such-flag', ...llmFlags(llm.url)],
      ['-p', 'hi', '--json', '--max-iterations', '0', ...llmFlags(llm.url)],
      ['-p', 'hi', '--json', '--approve', 'ask', ...llmFlags(llm.url)],
      ['-p', 'hi', '--json', '-r', 'no-such-session', ...llmFlags(llm.url)],
    ];
    // separate processes; only the last one opens sessions.db: they run side by side
    const results = await Promise.all(cases.map((args) => runCli(args, e.env)));
    for (const [i, r] of results.entries()) {
      expect(r.code, `${cases[i]!.join(' ')}\n${r.stderr}`).toBe(2);
      const out = JSON.parse(r.stdout) as { stopped_reason: string; error: { type: string; message: string } };
      expect(out.stopped_reason).toBe('error');
      expect(out.error.type).toBe('usage');
      // the same words as the one line on stderr
      expect(r.stderr.trimEnd().split('\n')).toEqual([`error: ${out.error.message}`]);
    }
    expect(llm.requests.filter((q) => q.purpose === null)).toHaveLength(0);
  });

  it('--stream-json: an error event and a done event; a subcommand: {"error": …}', async () => {
    const e = scope.fresh();
    const stream = await runCli(['-p', 'hi', '--stream-json', '--bogus'], e.env);
    expect(stream.code).toBe(2);
    const events = stream.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; error?: { type: string; message: string }; stopped_reason?: string });
    expect(events.map((ev) => ev.type)).toEqual(['error', 'done']);
    expect(events[0]!.error).toEqual({ type: 'usage', message: "unknown option '--bogus'" });
    expect(events[1]!.stopped_reason).toBe('error');

    for (const args of [
      ['sessions', 'list', '--json', '--limit', '0'],
      ['sessions', 'show', 'nope', '--json'],
      ['sessions', 'list', '--json', '--bogus'],
    ]) {
      const r = await runCli(args, e.env);
      expect(r.code, r.stderr).toBe(2);
      const out = JSON.parse(r.stdout) as { error: { type: string; message: string } };
      expect(out.error.type).toBe('usage');
      expect(r.stderr).toContain(out.error.message);
    }
    // without --json stdout stays empty
    const plain = await runCli(['sessions', 'list', '--limit', '0'], e.env);
    expect(plain.code).toBe(2);
    expect(plain.stdout).toBe('');
  });
});

describe('config list', () => {
  it('warns about a secret-looking key in config.json, as doctor does, and never prints its value', async () => {
    const e = scope.fresh();
    const dir = join(e.home, 'config', 'gns3-copilot');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ api_key: 'sk-leaked-in-config-1234567', max_tool_calls: 7 }));
    for (const args of [
      ['config', 'list'],
      ['config', 'list', '--json'],
    ]) {
      const r = await runCli(args, e.env);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(
        /^warning: ignored "api_key" in .*config\.json: secrets belong in the keychain \(gns3-copilot auth login\)$/m,
      );
      expect(r.stdout + r.stderr).not.toContain('sk-leaked');
      expect(r.stdout).toMatch(/max_tool_calls/);
    }
    const doctor = await runCli(['doctor', '--json'], e.env);
    expect(doctor.stdout).toMatch(/ignored \\"api_key\\" in .*config\.json: secrets belong in the keychain/);
  });
});

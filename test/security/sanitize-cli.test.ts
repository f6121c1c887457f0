/**
 * No escape sequence reaches a terminal from the built binary in one-shot text
 * mode and `sessions list/show/export`: model text, tool arguments, titles and
 * error bodies full of OSC 0/8, ESC[2J, alternate-screen, C1 CSI and CR/BS
 * overwrites. A malformed SSE stream becomes one clean error line. A
 * model-chosen tool name full of escapes is cleaned on stderr; JSON output
 * escapes C1 and bidi controls as \uXXXX. (The TUI: sanitize.test.ts, tmux.)
 */
import { describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { llmFlags, runCli } from '../e2e/oneshot-cli.js';
import { cliScope } from '../helpers/cli-scope.js';
import { commandCall } from '../helpers/tool-calls.js';

const scope = cliScope({ GNS3_COPILOT_API_KEY: 'sk-test-sanitize-000000', GNS3_COPILOT_LLM_RETRIES: '0' });
const NASTY =
  '\x1b]0;PWNED-TITLE\x07\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\\x1b[2J\x1b[?1049h\x9b31mred\x1b[0m\rOVER\bX\u202e';
/** anything a terminal would interpret, except newline */
const CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
/** a tool name as a hostile model sends it: OSC 0 title, 8-bit CSI clear, RTL override */
const EVIL_TOOL = '\u001b]0;EVILNAME\u0007\u009b2Jtool\u202e';
/** what JSON output must never carry raw (JSON.stringify leaves these alone) */
const RAW_IN_JSON = /[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const WEIRD = 'csi\u009b nel\u0085 rlo\u202e lrm\u200e alm\u061c iso\u2066 del\u007f';

describe('one-shot text mode and sessions subcommands', () => {
  it('model text, tool arguments, the title and tool output print as plain text', async () => {
    const e = scope.fresh();
    const call = commandCall(`R1${NASTY}`, [`show ${NASTY}`]);
    const llm = await scope.startLlm([{ text: `Hello ${NASTY} world.\n`, tool_calls: [call] }, { text: `bye ${NASTY}` }], {
      title: `Title ${NASTY}`,
    });
    const r = await runCli(['-p', 'hi', ...llmFlags(llm.url)], e.env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Hello clickredOVERX world.');
    expect(r.stdout).not.toMatch(CONTROL);
    expect(r.stderr).toContain('execute_multiple_device_commands');
    expect(r.stderr).not.toMatch(CONTROL);

    const list = await runCli(['sessions', 'list'], e.env);
    expect(list.stdout).toMatch(/Title click/);
    expect(list.stdout).not.toMatch(CONTROL);
    const id = /^([0-9a-f]{8})/m.exec(list.stdout.split('\n')[1]!)![1]!;
    for (const args of [
      ['sessions', 'show', id],
      ['sessions', 'export', id],
    ]) {
      const out = await runCli(args, e.env);
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout).toContain('Hello clickredOVERX world.');
      expect(out.stdout, args.join(' ')).not.toMatch(CONTROL);
    }
  });

  it('a model-chosen tool name with escapes prints clean on stderr, its arguments too', async () => {
    const e = scope.fresh();
    const llm = await scope.startLlm([{ tool_calls: [{ id: 'x1', name: EVIL_TOOL, args: { a: NASTY } }] }, { text: 'done' }]);
    const r = await runCli(['-p', 'hi', ...llmFlags(llm.url)], e.env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^→ tool /m);
    expect(r.stderr).toMatch(/^← tool blocked/m);
    // the output is the tool result's JSON text: the name in it is \u-escaped, never raw
    expect(r.stderr).not.toContain('\x1b]0;EVILNAME');
    expect(r.stderr).not.toMatch(CONTROL);
  });

  it('--json, --stream-json and sessions show|list|export --json escape C1 and bidi controls as \\uXXXX', async () => {
    const e = scope.fresh();
    const llm = await scope.startLlm([{ tool_calls: [{ id: 'x1', name: EVIL_TOOL, args: { a: WEIRD } }] }, { text: `answer ${WEIRD}` }], {
      title: `title ${WEIRD}`,
    });
    const j = await runCli(['-p', 'hi', '--json', ...llmFlags(llm.url)], e.env);
    expect(j.code, j.stderr).toBe(0);
    expect(j.stdout).not.toMatch(RAW_IN_JSON);
    expect(j.stdout).toContain('\\u009b');
    expect(j.stdout).toContain('\\u202e');
    expect(j.stdout).toContain('\\u0085');
    const result = JSON.parse(j.stdout) as { session_id: string; response: string; tool_calls: { name: string; args: unknown }[] };
    // escaped, not removed: a JSON reader gets the very characters back
    expect(result.response).toBe(`answer ${WEIRD}`);
    expect(result.tool_calls[0]).toMatchObject({ name: EVIL_TOOL, args: { a: WEIRD } });

    llm.push({ text: `again ${WEIRD}` });
    const s = await runCli(['-p', 'more', '-r', result.session_id, '--stream-json', ...llmFlags(llm.url)], e.env);
    expect(s.code, s.stderr).toBe(0);
    expect(s.stdout).not.toMatch(RAW_IN_JSON);
    const deltas = s.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; delta?: string })
      .filter((ev) => ev.type === 'content')
      .map((ev) => ev.delta)
      .join('');
    expect(deltas).toBe(`again ${WEIRD}`);

    for (const args of [
      ['sessions', 'show', result.session_id, '--json'],
      ['sessions', 'export', result.session_id, '--format', 'json'],
      ['sessions', 'list', '--json'], // the title was stored as one clean line
    ]) {
      const out = await runCli(args, e.env);
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout, args.join(' ')).not.toMatch(RAW_IN_JSON);
      if (args[1] !== 'list') expect(out.stdout, args.join(' ')).toContain('\\u202e');
      expect(() => JSON.parse(out.stdout) as unknown).not.toThrow();
    }
  });

  it('an error body with escapes is one printable stderr line', async () => {
    const e = scope.fresh();
    const llm = await scope.startLlm([{ error: { status: 400, message: `bad ${NASTY}\nsecond line` } }]);
    const r = await runCli(['-p', 'hi', ...llmFlags(llm.url)], e.env);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^error: LLM provider refused the request \(400\).*bad click/);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(CONTROL);
  });

  it('a malformed SSE stream is one clean error line, no SDK dump', async () => {
    const e = scope.fresh();
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`data: {"id":"x","choices":[{"delta":{"content":"hi"}}]}\n\ndata: {not json ${NASTY}\n\ndata: [DONE]\n\n`);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      const r = await runCli(['-p', 'hi', ...llmFlags(url)], e.env);
      expect(r.code).toBe(4);
      expect(r.stdout).toBe('hi\n');
      expect(r.stderr).toMatch(/^error: LLM provider sent a malformed response stream/);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).not.toContain('Could not parse');
      const j = await runCli(['-p', 'hi', '--json', ...llmFlags(url)], e.env);
      expect(j.stderr).toBe('');
      expect(JSON.parse(j.stdout).error.message).toMatch(/malformed response stream/);
    } finally {
      server.close();
    }
  });
});

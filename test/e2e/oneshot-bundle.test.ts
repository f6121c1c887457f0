/**
 * Agent runs on the one-file bundle (dist/core.cjs, src/boot/): the built CLI routes a one-shot
 * there, runs it from its V8 code cache once a run has written one, and answers exactly as the
 * code-split build does (GNS3_COPILOT_CODE_CACHE=off).
 */
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeGns3 } from '../fakes/gns3/server.js';
import { fakeLlmServers } from '../helpers/fake-llm.js';
import { commandCall } from '../helpers/tool-calls.js';
import { BIN, cliEnv, llmFlags, runCli } from './oneshot-cli.js';
import { parseJsonResult } from './oneshot-schema.js';

const env = cliEnv();
afterAll(() => env.cleanup());
const startLlm = fakeLlmServers();

const REPORT = { GNS3_COPILOT_CODE_CACHE: 'report' };
const OFF = { GNS3_COPILOT_CODE_CACHE: 'off' };

describe('one-shot on the bundle', () => {
  it('runs from the code cache after a first run wrote it, and answers as the code-split build does', async () => {
    const turns = (tag: string) => [
      { when: tag, text: 'Checking.', tool_calls: [commandCall('R1', ['show version'], `${tag}-c1`)] },
      { when: tag, text: `${tag}: R1 could not be reached.` },
    ];
    const llm = await startLlm([...turns('first'), ...turns('second'), ...turns('modules')]);
    const run = (tag: string, extra: NodeJS.ProcessEnv) =>
      runCli(['-p', `${tag}: check R1`, '--json', ...llmFlags(llm.url)], { ...env.env, ...extra });

    const first = await run('first', REPORT);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/^code cache: (cold|used) \(/m);
    // the first run (or another one before it) left a cache this run fits
    const second = await run('second', REPORT);
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(/^code cache: used \(.*-run\.v8\)$/m);
    const modules = await run('modules', OFF);
    expect(modules.code).toBe(0);
    expect(modules.stderr).not.toContain('code cache');

    const shape = (stdout: string, tag: string) => {
      const j = parseJsonResult(stdout);
      return {
        response: j.response.replace(tag, 'TAG'),
        tool_calls: j.tool_calls.map((c) => ({ name: c.name, args: c.args })),
        llm_calls: j.stats.llm_calls,
        stopped_reason: j.stopped_reason,
        error: j.error,
        mode: j.mode,
      };
    };
    expect(shape(second.stdout, 'second')).toEqual(shape(modules.stdout, 'modules'));
    expect(shape(first.stdout, 'first')).toEqual(shape(modules.stdout, 'modules'));
  });

  it('--estimate has its own cache; a usage error is the same one line and exit code on both builds', async () => {
    const llm = await startLlm([]);
    const estimate = (extra: NodeJS.ProcessEnv) =>
      runCli(['-p', 'how big?', '--estimate', '--json', ...llmFlags(llm.url)], { ...env.env, ...extra });
    expect((await estimate(REPORT)).code).toBe(0);
    const again = await estimate(REPORT);
    expect(again.stderr).toMatch(/^code cache: used \(.*-estimate\.v8\)$/m);
    const off = await estimate(OFF);
    expect(JSON.parse(again.stdout)).toEqual(JSON.parse(off.stdout));
    expect(llm.requests).toHaveLength(0);

    const bad = (extra: NodeJS.ProcessEnv) => runCli(['-p', 'x', '--json', '--stream-json'], { ...env.env, ...extra });
    const [b, m] = [await bad({}), await bad(OFF)];
    expect(b.code).toBe(2);
    expect([b.code, b.stderr, b.stdout]).toEqual([m.code, m.stderr, m.stdout]);
  });

  it('a command line sent to the bundle that starts the TUI after all (`--project -p`) runs it on the modules, same terminal', async () => {
    const gns3 = await startFakeGns3({ api: 'v2' });
    gns3.addProject({ name: '-p' });
    const llm = await startLlm([]);
    // a real terminal (util-linux script): the TUI only starts on one
    const cmd = `stty cols 100 rows 30; exec '${process.execPath}' '${BIN}' --server '${gns3.url}' --project -p ${llmFlags(llm.url).join(' ')}`;
    const child = spawn('script', ['-qfec', cmd, '/dev/null'], {
      env: { ...env.env, ...REPORT, TERM: 'xterm-256color' },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    const plain = () => out.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no TUI: ${plain().slice(-600)}`)), 40_000);
        child.stdout.on('data', () => {
          if (/Ask about your lab/.test(plain())) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      // the bundle ran first (it reports its cache), then the TUI on the project named "-p"
      expect(plain()).toMatch(/code cache: (used|cold)/);
      expect(plain()).toMatch(/· -p │/);
    } finally {
      child.stdin.write('\u0003\u0003');
      const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.on('exit', r)));
      clearTimeout(kill);
      await gns3.close();
    }
  }, 60_000);
});

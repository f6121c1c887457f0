import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, isolatedEnv, ROOT } from '../helpers/cli-run.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

/** exit 2, exactly one stderr line, that line matches, no stack trace, nothing on stdout */
async function expectUsage(args: string[], re: RegExp, env?: Record<string, string>) {
  const r = await runCli(args, { env: env ?? isolatedEnv() });
  expect(r.code, r.stderr).toBe(2);
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(re);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stdout).toBe('');
}

describe('--version and --help', () => {
  it('--version prints the package version', async () => {
    const r = await runCli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${pkg.version}\n`);
  });

  it('--help lists every flag, the commands and examples', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    for (const flag of [
      '--server',
      '--project',
      '--mode',
      '--max-iterations',
      '--max-tool-calls',
      '--max-time',
      '--max-cost',
      '--estimate',
      '--tool-limit',
      '--on-limit',
      '--max-parallel-tools',
      '--max-retries-per-tool',
      '--max-device-config-calls',
      '--max-diagnostic-calls',
      '--provider',
      '--model',
      '--base-url',
      '--temperature',
      '--context-limit',
      '--context-strategy',
      '--continue',
      '--resume',
      '--approve',
      '--json',
      '--stream-json',
      '--insecure',
      '--no-color',
      '--verbose',
      '--prompt',
    ]) {
      expect(r.stdout).toContain(flag);
    }
    for (const cmd of ['inject', 'sessions', 'auth', 'config', 'skills', 'doctor'])
      expect(r.stdout).toMatch(new RegExp(`^  ${cmd}\\b`, 'm'));
    expect(r.stdout).toContain('Examples:');
    expect(r.stdout).toContain('Exit codes:');
  });

  it('subcommand help works', async () => {
    const r = await runCli(['sessions', 'export', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--format');
  });
});

// every case is its own process in its own HOME: they run side by side (vitest's maxConcurrency at a time)
describe.concurrent('bad flags: one line naming the flag and the range, exit 2', () => {
  const cases: [string[], RegExp][] = [
    [['--max-iterations', '0'], /^error: --max-iterations: must be an integer 1\.\.100 \(got 0\)$/],
    [['--max-iterations', '101'], /^error: --max-iterations: must be an integer 1\.\.100 \(got 101\)$/],
    [['--max-iterations', 'abc'], /^error: --max-iterations: must be an integer 1\.\.100 \(got abc\)$/],
    [['--max-tool-calls', '51'], /^error: --max-tool-calls: must be an integer 1\.\.50 \(got 51\)$/],
    [['--max-tool-calls', '0'], /^error: --max-tool-calls: must be an integer 1\.\.50 \(got 0\)$/],
    [['--max-time', '86401'], /^error: --max-time: must be an integer 1\.\.86400/],
    [['--max-cost', '0'], /^error: --max-cost: must be a number 0\.001\.\.1000 \(got 0\)$/],
    [['--max-cost', '1001'], /^error: --max-cost: must be a number 0\.001\.\.1000 \(got 1001\)$/],
    [['--max-parallel-tools', '0'], /^error: --max-parallel-tools: must be an integer 1\.\.20 \(got 0\)$/],
    [['--max-parallel-tools', '21'], /^error: --max-parallel-tools: must be an integer 1\.\.20 \(got 21\)$/],
    [['--max-retries-per-tool', '6'], /^error: --max-retries-per-tool: must be an integer 0\.\.5 \(got 6\)$/],
    [['--max-device-config-calls', '0'], /^error: --max-device-config-calls: must be an integer 1\.\.1000 \(got 0\)$/],
    [['--max-diagnostic-calls', 'many'], /^error: --max-diagnostic-calls: must be an integer 1\.\.1000 \(got many\)$/],
    [['--mode', 'chaos'], /^error: --mode: must be teaching\|lab\|inject .*\(got chaos\)$/],
    [['-m', 'teach'], /^error: --mode: must be teaching\|lab\|inject/],
    [['--server', 'not-a-url'], /^error: --server: must be an http:\/\/ or https:\/\/ URL.*\(got not-a-url\)$/],
    [['-s', 'ftp://127.0.0.1'], /^error: --server: must be an http:\/\/ or https:\/\/ URL/],
    [['--base-url', '127.0.0.1:1234'], /^error: --base-url: must be an http:\/\/ or https:\/\/ URL/],
    [['--on-limit', 'maybe'], /^error: --on-limit: must be one of fail\|warn\|continue \(got maybe\)$/],
    [['--tool-limit', 'x'], /^error: --tool-limit: expected <tool>=<n> with n 1\.\.1000 \(got x\)$/],
    [['--tool-limit', 'execute_vpcs_commands='], /^error: --tool-limit: expected <tool>=<n>/],
    [['--tool-limit', 'nosuchtool=3'], /^error: --tool-limit: unknown tool "nosuchtool"/],
    [
      ['--tool-limit', 'execute_vpcs_commands=0'],
      /^error: --tool-limit: expected <tool>=<n> with n 1\.\.1000 \(got execute_vpcs_commands=0\)$/,
    ],
    [['--tool-limit', 'execute_vpcs_commands=1001'], /^error: --tool-limit: expected <tool>=<n> with n 1\.\.1000/],
    [['--tool-limit', 'execute_vpcs_commands=2.5'], /^error: --tool-limit: expected <tool>=<n> with n 1\.\.1000/],
    [['--temperature', '3'], /^error: --temperature: must be a number 0\.\.2 \(got 3\)$/],
    [['--temperature', '-0.5'], /^error: --temperature: must be a number 0\.\.2/],
    [['--context-limit', '0'], /^error: --context-limit: must be an integer 1\.\./],
    [['--topology-inline-max', '-1'], /^error: --topology-inline-max: must be an integer 0\.\.100000 \(got -1\)$/],
    [['--context-strategy', 'yolo'], /^error: --context-strategy: must be one of conservative\|balanced\|aggressive/],
    [['--provider', 'acme'], /^error: --provider: must be one of openai\|deepseek/],
    [['--approve', 'sometimes'], /^error: --approve: must be one of never\|ask\|config\|all/],
    [['--approve', 'ask'], /^error: --approve: "ask" needs the interactive TUI; in one-shot use never\|config\|all$/],
    [['--json', '--stream-json'], /^error: --json and --stream-json cannot be combined/],
    [
      ['--model', 'no-such-model', '--context-limit', '8', '--max-cost', '1'],
      /^error: --max-cost: model "no-such-model" has no price; add it to model_prices/,
    ],
    [['--bogus'], /^error: unknown option '--bogus'/],
    [['--max-iterations'], /^error: option '--max-iterations <n>' argument missing$/],
  ];
  for (const [args, re] of cases) {
    it(`${args.join(' ')}`, async () => expectUsage(['-p', 'hello', ...args], re));
  }

  it('an unknown command is a usage error', async () => expectUsage(['frobnicate'], /^error: unknown command 'frobnicate'/));
  it('an empty -p is a usage error', async () => expectUsage(['-p', ''], /^error: --prompt: must not be empty$/));
  it('no prompt and no terminal is a usage error', async () =>
    expectUsage([], /^error: no prompt: pass -p "<prompt>" or pipe one on stdin/));
  it('bad values in env name the variable', async () =>
    expectUsage(
      ['-p', 'x'],
      /^error: GNS3_COPILOT_MAX_ITERATIONS: must be an integer 1\.\.100 \(got 0\)$/,
      isolatedEnv({ GNS3_COPILOT_MAX_ITERATIONS: '0' }),
    ));
  it('inject validates the same flags', async () =>
    expectUsage(['inject', 'break it', '--max-tool-calls', '51'], /^error: --max-tool-calls: must be an integer 1\.\.50/));
  it('program flags before inject apply to it', async () =>
    expectUsage(['--max-tool-calls', '51', 'inject', 'break it'], /^error: --max-tool-calls: must be an integer 1\.\.50/));
  it('inject refuses a mode lock that forbids it', async () => {
    const env = isolatedEnv();
    const sys = join(env.HOME!, 'sys.json');
    (await import('node:fs')).writeFileSync(sys, JSON.stringify({ mode: 'teaching', locked: ['mode'] }));
    await expectUsage(
      ['inject', 'break it'],
      /^error: inject: "mode" is locked to "teaching_assistant" by the system config .*sys\.json \(classroom lock\)/,
      { ...env, GNS3_COPILOT_SYSTEM_CONFIG: sys },
    );
  });
});

describe('subcommand options are not settings flags', () => {
  it('sessions list --mode/--project filter sessions and do not trip a classroom mode lock', async () => {
    const env = isolatedEnv();
    const sys = join(env.HOME!, 'sys.json');
    (await import('node:fs')).writeFileSync(sys, JSON.stringify({ mode: 'teaching', locked: ['mode'] }));
    const r = await runCli(['sessions', 'list', '--mode', 'lab', '--project', 'p1', '--json'], {
      env: { ...env, GNS3_COPILOT_SYSTEM_CONFIG: sys },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ sessions: [] });
  });
});

describe('unexpected errors', () => {
  it('are one line with exit 1; the stack trace only with --verbose', async () => {
    const env = isolatedEnv();
    const fs = await import('node:fs');
    const notADir = join(env.HOME!, 'a-file');
    fs.writeFileSync(notADir, '');
    const e = { ...env, XDG_CONFIG_HOME: notADir }; // the config dir cannot be created
    let r = await runCli(['config', 'set', 'model', 'x'], { env: e });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: internal error: ENOTDIR: not a directory, mkdir '.*a-file\/gns3-copilot'\n$/);
    r = await runCli(['--verbose', 'config', 'set', 'model', 'x'], { env: e });
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')[0]).toMatch(/^error: internal error: ENOTDIR/);
    expect(r.stderr).toMatch(/\n\s+at /);
  });
});

describe('broken config files', () => {
  it('an unreadable user config is one line naming the file, exit 2', async () => {
    const env = isolatedEnv();
    const fs = await import('node:fs');
    const file = join(env.XDG_CONFIG_HOME!, 'gns3-copilot', 'config.json');
    fs.mkdirSync(file, { recursive: true }); // a directory where the file should be
    await expectUsage(['config', 'list'], new RegExp(`^error: cannot read config file ${file}: EISDIR`), env);
  });

  it('invalid JSON in the project file names it', async () => {
    const env = isolatedEnv();
    const fs = await import('node:fs');
    fs.writeFileSync(join(env.HOME!, '.gns3-copilot.json'), '{ "server": ');
    await expectUsage(['-p', 'x'], /^error: config file .*\.gns3-copilot\.json is not valid JSON/, env);
  });
});

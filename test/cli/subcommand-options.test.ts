/**
 * Each subcommand lists (and takes after its name) only the settings options it reads: `check`
 * no LLM options, `inject` no `--mode` (it is its mode). An option that does not apply there is
 * a usage error naming it; the program's options before the subcommand's name still reach it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isolatedEnv, runCli } from '../helpers/cli-run.js';

/** The long option names `--help` lists under Options. */
async function helpOptions(args: string[]): Promise<string[]> {
  const r = await runCli([...args, '--help']);
  expect(r.code, r.stderr).toBe(0);
  const options = r.stdout.slice(r.stdout.indexOf('Options:'));
  return [...options.matchAll(/^ {2}(?:-\w, )?(--[\w-]+)/gm)].map((m) => m[1]!);
}

const LLM_AND_LIMITS = [
  '--model',
  '--provider',
  '--base-url',
  '--temperature',
  '--context-limit',
  '--max-iterations',
  '--max-tool-calls',
  '--tool-limit',
  '--on-limit',
  '--agent-mode',
];

describe('subcommand options', () => {
  it.each([
    [
      ['check'],
      [
        '--init',
        '--json',
        '--junit',
        '--watch',
        '--only',
        '--stage',
        '--projects',
        '--jobs',
        '--server',
        '--insecure',
        '--project',
        '--no-color',
        '--verbose',
        '--help',
      ],
    ],
    [['diff'], ['--to', '--device', '--state', '--json', '--server', '--insecure', '--project', '--no-color', '--verbose', '--help']],
    [
      ['rewind'],
      [
        '--to',
        '--device',
        '--dry-run',
        '--yes',
        '--json',
        '--server',
        '--insecure',
        '--project',
        '--approve',
        '--no-color',
        '--verbose',
        '--help',
      ],
    ],
    [
      ['faults', 'list'],
      ['--session', '--json', '--server', '--insecure', '--project', '--no-color', '--verbose', '--help'],
    ],
    [
      ['faults', 'show'],
      ['--session', '--json', '--server', '--insecure', '--project', '--no-color', '--verbose', '--help'],
    ],
    [
      ['faults', 'check'],
      [
        '--session',
        '--json',
        '--watch',
        '--projects',
        '--jobs',
        '--server',
        '--insecure',
        '--project',
        '--no-color',
        '--verbose',
        '--help',
      ],
    ],
    [
      ['faults', 'restore'],
      ['--session', '--json', '--yes', '--server', '--insecure', '--project', '--approve', '--no-color', '--verbose', '--help'],
    ],
    [
      ['checkpoint', 'save'],
      ['--note', '--replace', '--projects', '--jobs', '--json', '--server', '--insecure', '--project', '--no-color', '--verbose', '--help'],
    ],
    [
      ['checkpoint', 'diff'],
      ['--device', '--json', '--server', '--insecure', '--project', '--no-color', '--verbose', '--help'],
    ],
    [
      ['checkpoint', 'restore'],
      [
        '--device',
        '--dry-run',
        '--yes',
        '--projects',
        '--jobs',
        '--json',
        '--server',
        '--insecure',
        '--project',
        '--approve',
        '--no-color',
        '--verbose',
        '--help',
      ],
    ],
    [['mcp'], ['--http', '--listen', '--server', '--insecure', '--project', '--mode', '--approve', '--no-color', '--verbose', '--help']],
    [
      ['doctor'],
      [
        '--server',
        '--insecure',
        '--project',
        ...LLM_AND_LIMITS.slice(0, 5),
        '--context-strategy',
        '--topology-inline-max',
        '--no-color',
        '--verbose',
        '--json',
        '--help',
      ],
    ],
  ])('%j --help lists only its own options', async (cmd, want) => {
    expect((await helpOptions(cmd)).sort()).toEqual([...want].sort());
  });

  it('inject lists the run, LLM and limit options but not --mode, and refuses it', async () => {
    const opts = await helpOptions(['inject']);
    expect(opts).toEqual(
      expect.arrayContaining([...LLM_AND_LIMITS, '--prompt', '--json', '--continue', '--approve', '--level', '--project']),
    );
    expect(opts).not.toContain('--mode');
    const r = await runCli(['inject', '-m', 'lab', 'break it']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error: unknown option '-m'\n");
  });

  it('an option a subcommand does not read is exit 2 naming it; before the subcommand the program takes it', async () => {
    const env = isolatedEnv();
    const file = join(env.HOME!, 'lab.yaml');
    writeFileSync(file, 'project: lab\nchecks:\n  - node: {name: R1, status: started}\n');
    const after = await runCli(['check', file, '--model', 'gpt-4o'], { env });
    expect(after.code).toBe(2);
    expect(after.stderr).toBe("error: unknown option '--model'\n");
    // the program's options before the name reach the subcommand: this --server is the one it fails to reach
    const before = await runCli(['--server', 'http://127.0.0.1:9', '--model', 'gpt-4o', 'check', file], { env });
    expect(before.code, before.stderr).toBe(3);
    expect(before.stderr).toMatch(/^error: .*127\.0\.0\.1:9/m);
    const own = await runCli(['check', file, '--server', 'http://127.0.0.1:9'], { env });
    expect(own.code, own.stderr).toBe(3);
  });
});

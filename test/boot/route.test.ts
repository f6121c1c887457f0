import { describe, expect, it } from 'vitest';
import { bundleKind } from '../../src/boot/route.js';
import { SUBCOMMANDS } from '../../src/ui/first-frame.js';

const tty = { isTTY: true };
const pipe = { isTTY: false };
const term = { stdin: tty, stdout: tty, env: {} };
const route = (argv: string[], io = term) => bundleKind(argv, io, SUBCOMMANDS);

describe('which build a command line runs on', () => {
  it('an agent run that cannot be the TUI takes the bundle: a request, or an --estimate', () => {
    expect(route(['-p', 'why is R2 down?', '--json'])).toBe('run');
    expect(route(['--prompt=hi'])).toBe('run');
    expect(route(['-phi'])).toBe('run');
    expect(route(['--estimate', '-p', 'x'])).toBe('estimate');
    expect(route(['inject', '-p', 'break OSPF'])).toBe('run');
    // a prompt piped in, or output to a script
    expect(route([], { ...term, stdin: pipe })).toBe('run');
    expect(route(['--project', 'lab1', '--stream-json'], { ...term, stdout: pipe })).toBe('run');
  });

  it('the class commands take the bundle in a terminal too, each with its own kind of cache', () => {
    expect(route(['check', 'lab.yaml', '--projects', 'student-*'])).toBe('check');
    expect(route(['check', 'lab.yaml', '--watch'])).toBe('check');
    expect(route(['checkpoint', 'restore', 'stage1', '--yes'])).toBe('checkpoint');
    expect(route(['faults', 'check', '--projects', 's-*'])).toBe('faults');
    expect(route(['inject', '--scenario', 'ospf_hello_interval_mismatch', '--device', 'R1'])).toBe('inject');
    expect(route(['inject', '--random=3', '--seed', '1'])).toBe('inject');
    expect(route(['--server', 'http://127.0.0.1:3080', 'check', 'lab.yaml'])).toBe('check');
  });

  it('the TUI, the other subcommands, help and version take the code-split modules', () => {
    expect(route([])).toBe(undefined);
    expect(route(['--project', 'lab1', '-m', 'lab'])).toBe(undefined);
    expect(route(['inject'])).toBe(undefined);
    for (const argv of [['--help'], ['-h'], ['-V'], ['--version'], ['-p', 'x', '--help'], ['help'], ['check', '--help']])
      expect(route(argv, { ...term, stdout: pipe })).toBe(undefined);
    const bundled = new Set(['inject', 'check', 'checkpoint', 'faults']);
    for (const sub of [...SUBCOMMANDS].filter((s) => !bundled.has(s)))
      expect(route([sub, '--json'], { ...term, stdout: pipe })).toBe(undefined);
    // the first subcommand word decides: `sessions check` is not `check`
    expect(route(['sessions', 'check'])).toBe(undefined);
  });

  it('a word that may be a value, or a flag after --, costs at most the wrong cache (slower, never different)', () => {
    expect(route(['-p', 'sessions'])).toBe(undefined);
    expect(route(['-p', 'check'])).toBe('check');
    expect(route(['--', '-p', 'x'])).toBe(undefined);
  });

  it('GNS3_COPILOT_CODE_CACHE=off keeps every run on the modules', () => {
    expect(route(['-p', 'x'], { ...term, env: { GNS3_COPILOT_CODE_CACHE: 'off' } })).toBe(undefined);
    expect(route(['check', 'lab.yaml'], { ...term, env: { GNS3_COPILOT_CODE_CACHE: 'off' } })).toBe(undefined);
    expect(route(['-p', 'x'], { ...term, env: { GNS3_COPILOT_CODE_CACHE: 'report' } })).toBe('run');
  });
});

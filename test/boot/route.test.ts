import { describe, expect, it } from 'vitest';
import { buildFor } from '../../src/boot/route.js';
import { SUBCOMMANDS } from '../../src/ui/first-frame.js';

const tty = { isTTY: true };
const pipe = { isTTY: false };
const term = { stdin: tty, stdout: tty, env: {} };
const route = (argv: string[], io = term) => buildFor(argv, io, SUBCOMMANDS);

describe('which build a command line runs on', () => {
  it('an agent run that cannot be the TUI takes the bundle', () => {
    expect(route(['-p', 'why is R2 down?', '--json'])).toBe('bundle');
    expect(route(['--prompt=hi'])).toBe('bundle');
    expect(route(['-phi'])).toBe('bundle');
    expect(route(['--estimate', '-p', 'x'])).toBe('bundle');
    expect(route(['inject', '-p', 'break OSPF'])).toBe('bundle');
    // a prompt piped in, or output to a script
    expect(route([], { ...term, stdin: pipe })).toBe('bundle');
    expect(route(['--project', 'lab1', '--stream-json'], { ...term, stdout: pipe })).toBe('bundle');
  });

  it('the TUI, subcommands, help and version take the code-split modules', () => {
    expect(route([])).toBe('modules');
    expect(route(['--project', 'lab1', '-m', 'lab'])).toBe('modules');
    expect(route(['inject'])).toBe('modules');
    for (const argv of [['--help'], ['-h'], ['-V'], ['--version'], ['-p', 'x', '--help'], ['help']])
      expect(route(argv, { ...term, stdout: pipe })).toBe('modules');
    for (const sub of [...SUBCOMMANDS].filter((s) => s !== 'inject'))
      expect(route([sub, '--json'], { ...term, stdout: pipe })).toBe('modules');
  });

  it('a word that may name a subcommand, or a flag after --, guesses modules (slower, never different)', () => {
    expect(route(['-p', 'check'])).toBe('modules');
    expect(route(['--', '-p', 'x'])).toBe('modules');
  });

  it('GNS3_COPILOT_CODE_CACHE=off keeps every run on the modules', () => {
    expect(route(['-p', 'x'], { ...term, env: { GNS3_COPILOT_CODE_CACHE: 'off' } })).toBe('modules');
    expect(route(['-p', 'x'], { ...term, env: { GNS3_COPILOT_CODE_CACHE: 'report' } })).toBe('bundle');
  });
});

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SUBCOMMANDS, startsTui } from '../../src/ui/first-frame.js';

const BIN = join(fileURLToPath(new URL('../..', import.meta.url)), 'bin/gns3-copilot.js');
const tty = { stdin: { isTTY: true }, stdout: { isTTY: true }, env: {} };

describe('the first frame drawn before the TUI loads', () => {
  it('is drawn only for a command line that surely starts the TUI', () => {
    expect(startsTui([], tty)).toBe(true);
    expect(startsTui(['--project', 'lab', '-m', 'lab', '-c'], tty)).toBe(true);
    for (const argv of [['-p', 'hi'], ['--prompt=hi'], ['-phi'], ['--json'], ['--help'], ['-V'], ['doctor'], ['--project', 'x', 'inject']])
      expect(startsTui(argv, tty), argv.join(' ')).toBe(false);
    expect(startsTui([], { ...tty, stdin: { isTTY: false } })).toBe(false);
    expect(startsTui([], { ...tty, stdout: {} })).toBe(false);
    expect(startsTui([], { ...tty, env: { CI: 'true' } })).toBe(false);
    expect(startsTui([], { ...tty, env: { TERM: 'dumb' } })).toBe(false);
  });

  it("knows every subcommand of the program (a new one must join the list, or its runs would draw the TUI's frame)", () => {
    const help = execFileSync(process.execPath, [BIN, '--help'], { encoding: 'utf8' });
    const commands = help
      .slice(help.indexOf('Commands:'))
      .split('\n')
      .slice(1)
      .map((l) => /^ {2}([a-z][\w-]*)/.exec(l)?.[1])
      .filter((c): c is string => c !== undefined);
    expect(commands.length).toBeGreaterThan(3);
    for (const c of commands) expect(SUBCOMMANDS.has(c), c).toBe(true);
  });
});

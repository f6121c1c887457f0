/**
 * The README is the user contract: its Quick start, options table, TUI command list and MCP
 * section say what the built CLI and the code do.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, runCli } from '../helpers/cli-run.js';
import { COMMANDS } from '../../src/ui/slash/index.js';
import { MCP_TOKEN_ENV } from '../../src/mcp/server/command.js';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The text under a heading, up to the next heading of the same or a higher level. */
function section(heading: string): string {
  const start = README.indexOf(`\n${heading}\n`);
  expect(start, heading).toBeGreaterThan(-1);
  const level = /^#+/.exec(heading)![0].length;
  const rest = README.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`\\n#{1,${level}} `));
  return end === -1 ? rest : rest.slice(0, end);
}

/** Long flags (`--name`) listed in a commander --help text. */
const helpFlags = (help: string) =>
  [...help.matchAll(/^\s+(?:-\w, )?(--[a-z][a-z0-9-]*)/gm)].map((m) => m[1]!).filter((f) => f !== '--help');

describe('README', () => {
  it('the Quick start gets a GNS3 3.x login in before doctor, with a flag auth login has', async () => {
    const quick = section('## Quick start (60 seconds)');
    const login = quick.indexOf('auth login --gns3-user');
    expect(login).toBeGreaterThan(-1);
    expect(login).toBeLessThan(quick.indexOf('gns3-copilot doctor'));
    expect(quick).toMatch(/GNS3_USER=\S+ GNS3_PASSWORD=/);
    const help = await runCli(['auth', 'login', '--help']);
    expect(helpFlags(help.stdout)).toContain('--gns3-user');
  });

  it('the options table lists every option of the main command', async () => {
    const table = section('### Options')
      .split('\n')
      .filter((l) => l.startsWith('| `'))
      .join('\n');
    const help = await runCli(['--help']);
    const flags = helpFlags(help.stdout);
    expect(flags).toEqual(expect.arrayContaining(['--child-execution-mode', '--max-parallel-children']));
    expect(flags.filter((f) => !table.includes(`\`${f}`) && !table.includes(`, ${f}`))).toEqual([]);
  });

  it('the TUI command list names every slash command', () => {
    const list = /^- Commands: ([\s\S]*?)\n- /m.exec(section('## TUI'))![1]!;
    expect(COMMANDS.map((c) => `/${c.name}`).filter((c) => !list.includes(`\`${c}`))).toEqual([]);
  });

  it('mcp --help and the README say what the code takes for --listen: the env token or the keychain', async () => {
    const help = (await runCli(['mcp', '--help'])).stdout.replace(/\s+/g, ' ');
    const mcp = section('## MCP').replace(/\s+/g, ' ');
    for (const text of [help, mcp]) {
      expect(text).toContain(MCP_TOKEN_ENV);
      expect(text).toMatch(/keychain/);
    }
    expect(help).toMatch(/--listen allow a non-loopback --http address \(needs GNS3_COPILOT_MCP_TOKEN or mcp_token in the keychain\)/);
    expect(mcp).toContain('auth login --mcp-token');
  });
});

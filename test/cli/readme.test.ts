/**
 * The README and docs/ are the user contract: the README's Quick start, docs/cli.md's options
 * table, docs/tui.md's command list and docs/mcp.md say what the built CLI and the code do.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT, runCli } from '../helpers/cli-run.js';
import { COMMANDS } from '../../src/ui/slash/index.js';
import { MCP_TOKEN_ENV } from '../../src/mcp/server/command.js';

const doc = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** The text of a document under a heading, up to the next heading of the same or a higher level. */
function section(file: string, heading: string): string {
  const text = doc(file);
  const start = text.indexOf(`\n${heading}\n`);
  expect(start, `${file}: ${heading}`).toBeGreaterThan(-1);
  const level = /^#+/.exec(heading)![0].length;
  const rest = text.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`\\n#{1,${level}} `));
  return end === -1 ? rest : rest.slice(0, end);
}

/** Long flags (`--name`) listed in a commander --help text. */
const helpFlags = (help: string) =>
  [...help.matchAll(/^\s+(?:-\w, )?(--[a-z][a-z0-9-]*)/gm)].map((m) => m[1]!).filter((f) => f !== '--help');

describe('README and docs/', () => {
  it('the Quick start gets a GNS3 3.x login in before doctor, with a flag auth login has', async () => {
    const quick = section('README.md', '## Quick start (60 seconds)');
    const login = quick.indexOf('auth login --gns3-user');
    expect(login).toBeGreaterThan(-1);
    expect(login).toBeLessThan(quick.indexOf('gns3-copilot doctor'));
    expect(quick).toMatch(/GNS3_USER=\S+ GNS3_PASSWORD=/);
    const help = await runCli(['auth', 'login', '--help']);
    expect(helpFlags(help.stdout)).toContain('--gns3-user');
  });

  it('the options table of docs/cli.md lists every option of the main command', async () => {
    const table = section('docs/cli.md', '## Options')
      .split('\n')
      .filter((l) => l.startsWith('| `'))
      .join('\n');
    const help = await runCli(['--help']);
    const flags = helpFlags(help.stdout);
    expect(flags).toEqual(expect.arrayContaining(['--child-execution-mode', '--max-parallel-children']));
    expect(flags.filter((f) => !table.includes(`\`${f}`) && !table.includes(`, ${f}`))).toEqual([]);
  });

  it('the command list of docs/tui.md names every slash command', () => {
    const list = /^- Commands: ([\s\S]*?)\n- /m.exec(doc('docs/tui.md'))![1]!;
    expect(COMMANDS.map((c) => `/${c.name}`).filter((c) => !list.includes(`\`${c}`))).toEqual([]);
  });

  it('mcp --help and docs/mcp.md say what the code takes for --listen: the env token or the keychain', async () => {
    const help = (await runCli(['mcp', '--help'])).stdout.replace(/\s+/g, ' ');
    const mcp = doc('docs/mcp.md').replace(/\s+/g, ' ');
    for (const text of [help, mcp]) {
      expect(text).toContain(MCP_TOKEN_ENV);
      expect(text).toMatch(/keychain/);
    }
    expect(help).toMatch(/--listen allow a non-loopback --http address \(needs GNS3_COPILOT_MCP_TOKEN or mcp_token in the keychain\)/);
    expect(mcp).toContain('auth login --mcp-token');
  });

  it("the README is a newcomer's page: at most 250 lines, with the install, run and test commands", () => {
    const readme = doc('README.md');
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
    for (const command of ['git clone', '\nnpm ci ', '\nnpm start -- --server ', '\nnpm test ']) expect(readme).toContain(command);
  });

  it('every relative link of README.md and docs/ names a file, and a heading of it, that exist', () => {
    const files = [
      'README.md',
      'CONTRIBUTING.md',
      ...readdirSync(join(ROOT, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    const broken: string[] = [];
    for (const file of files)
      for (const [, target] of doc(file).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [path, anchor] = target!.split('#');
        const linked = path ? join(dirname(file), path) : file;
        if (!existsSync(join(ROOT, linked))) broken.push(`${file}: ${target}`);
        else if (anchor && linked.endsWith('.md') && !headingAnchors(doc(linked)).includes(anchor)) broken.push(`${file}: ${target}`);
      }
    expect(broken).toEqual([]);
  });
});

/** GitHub's anchors of a Markdown file's headings: lower case, punctuation dropped, spaces as '-'. */
function headingAnchors(markdown: string): string[] {
  const code = /```[\s\S]*?```/g;
  return [...markdown.replace(code, '').matchAll(/^#{1,6} (.+)$/gm)].map((m) =>
    m[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-'),
  );
}

/**
 * `gns3-copilot mcp` checks at start that it can work — the controller answers, the login
 * is accepted, the project exists — and otherwise exits with one line on stderr, so an MCP
 * client (Claude Code, Gemini CLI) shows the server as failed with the reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mcpEnv, stdioClient } from './helpers.js';
import { BIN, runCli } from '../helpers/cli-run.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';

const PASSWORD = 'mcp-start-pw-81c2';
let v3: FakeGns3;
let v2: FakeGns3;
beforeAll(async () => {
  v3 = await startFakeGns3({ api: 'v3', users: { admin: PASSWORD } });
  v3.addProject({ name: 'lab3' });
  v2 = await startFakeGns3({ api: 'v2' });
  v2.addProject({ name: 'lab2' });
});
afterAll(async () => {
  await v3?.close();
  await v2?.close();
});

/** A port with nothing listening. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

const creds = { GNS3_USER: 'admin', GNS3_PASSWORD: PASSWORD };

describe('gns3-copilot mcp start-up check', () => {
  const cases: [what: string, code: number, server: () => Promise<string>, args: string[], env: Record<string, string>, why: RegExp][] = [
    ['an unreachable controller', 3, async () => `http://127.0.0.1:${await closedPort()}`, ['--project', 'lab3'], creds, /127\.0\.0\.1/],
    ['GNS3 v3 without credentials', 3, async () => v3.url, ['--project', 'lab3'], {}, /requires a login; store credentials/],
    [
      'GNS3 v3 with a wrong password',
      3,
      async () => v3.url,
      ['--project', 'lab3'],
      { ...creds, GNS3_PASSWORD: 'wrongpw' },
      /rejected the login for user "admin"/,
    ],
    [
      'GNS3 v3 without a project: the login is still checked',
      3,
      async () => v3.url,
      [],
      { ...creds, GNS3_PASSWORD: 'wrongpw' },
      /rejected the login/,
    ],
    [
      'a project that does not exist (usage, like -p with one)',
      2,
      async () => v2.url,
      ['--project', 'nope'],
      {},
      /project "nope" not found \(available: lab2\)/,
    ],
  ];
  it.each(cases)('%s: one line on stderr, exit %i', async (_what, code, server, args, env, why) => {
    const r = await runCli(['mcp', '-s', await server(), ...args], { env: mcpEnv(env) });
    expect(r.code, r.stderr).toBe(code);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^error: gns3-copilot mcp cannot start: /);
    expect(lines[0]).toMatch(why);
    expect(r.stderr).not.toContain('wrongpw');
  });

  it("the SDK client sees the server fail to connect, and the reason on the server's stderr", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '-s', v3.url, '--project', 'lab3'],
      env: mcpEnv(),
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: 'startup-test', version: '1.0.0' });
    await expect(client.connect(transport)).rejects.toThrow();
    expect(stderr).toMatch(/^error: gns3-copilot mcp cannot start: GNS3 controller at .* requires a login; store credentials/);
  });

  it('with a working login and project the SDK client connects and lists the tools', async () => {
    const { client } = await stdioClient([BIN, 'mcp', '-s', v3.url, '--project', 'lab3', '-m', 'teaching'], mcpEnv(creds));
    try {
      // (the exact tool set per mode is test/mcp/server.test.ts's subject)
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['execute_multiple_device_commands', 'gns3_topology_reader']));
    } finally {
      await client.close();
    }
  });
});

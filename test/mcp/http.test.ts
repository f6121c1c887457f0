/**
 * `gns3-copilot mcp --http`: streamable HTTP with a bearer token, through the
 * SDK's own client, onto the real FRR router behind the fake controller.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { discoverAuthorizationServerMetadata, discoverOAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/client/auth.js';
import type { ChildProcess } from 'node:child_process';
import { servedTools } from './served-tools.js';
import { startLab, type Lab } from '../lab/lab.js';
import { mcpEnv, serverArgs, startHttpBinary, startMcpLab, structured, type McpLab } from './helpers.js';
import { runCli } from '../helpers/cli-run.js';
import { startSecretService, type SecretService } from '../helpers/secret-service.js';

const TOKEN = 'test-token-4f1c9a';
let lab: Lab;
let env: McpLab;
const children: ChildProcess[] = [];

beforeAll(async () => {
  lab = await startLab({ routers: ['R1'], links: [] });
  env = await startMcpLab(lab);
});
afterAll(async () => {
  for (const c of children) c.kill('SIGTERM');
  await env?.close();
  await lab?.stop();
});

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '0' } },
};

async function post(url: string, headers: Record<string, string>) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(initialize),
  });
}

describe('gns3-copilot mcp --http', () => {
  it('refuses requests without the bearer token and serves the tools with it', async () => {
    const s = await startHttpBinary(serverArgs(env.fake, 'lab', ['--http', '127.0.0.1:0']), mcpEnv({ GNS3_COPILOT_MCP_TOKEN: TOKEN }));
    children.push(s.child);
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(s.stderr).toContain('bearer token required');
    expect(s.stderr).not.toContain(TOKEN);

    const none = await post(s.url!, {});
    expect(none.status).toBe(401);
    expect((await post(s.url!, { authorization: 'Bearer wrong' })).status).toBe(401);

    const client = new Client({ name: 'test-http', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(s.url!), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
    );
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(servedTools('lab_automation_assistant'));
    const r = await client.callTool({
      name: 'execute_multiple_device_commands',
      arguments: { device_configs: [{ device_name: 'R1', commands: ['show ip route'] }] },
    });
    expect(structured(r).devices[0]).toMatchObject({ device_name: 'R1', status: 'success' });
    // a second client (own MCP session) reuses the server's device pool
    const second = new Client({ name: 'test-http-2', version: '1.0.0' });
    await second.connect(
      new StreamableHTTPClientTransport(new URL(s.url!), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
    );
    const r2 = await second.callTool({
      name: 'execute_multiple_device_commands',
      arguments: { device_configs: [{ device_name: 'R1', commands: ['show version'] }] },
    });
    expect(structured(r2).devices[0]).toMatchObject({ status: 'success' });
    await client.close();
    await second.close();
  });

  it("bearer-token auth does not advertise OAuth: the SDK client shows the server's 401 text, discovery finds nothing", async () => {
    const s = await startHttpBinary(serverArgs(env.fake, 'teaching', ['--http', '127.0.0.1:0']), mcpEnv({ GNS3_COPILOT_MCP_TOKEN: TOKEN }));
    children.push(s.child);
    const url = new URL(s.url!);
    const none = await post(url.href, {});
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBeNull();
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration',
    ]) {
      const r = await fetch(new URL(path, url));
      expect([path, r.status]).toEqual([path, 404]);
    }
    // the SDK's own discovery, as a client with an OAuth provider runs it
    await expect(discoverOAuthProtectedResourceMetadata(url)).rejects.toThrow(/does not implement OAuth 2\.0 Protected Resource Metadata/);
    expect(await discoverAuthorizationServerMetadata(new URL('/', url))).toBeUndefined();
    // a client without the token: its error carries the server's explanation, never the token
    const client = new Client({ name: 'no-token', version: '1.0.0' });
    const err = await client.connect(new StreamableHTTPClientTransport(url)).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(StreamableHTTPError);
    expect(err!.message).toContain("missing or wrong bearer token: send the header 'Authorization: Bearer <token>' with the token");
    expect(err!.message).toContain('GNS3_COPILOT_MCP_TOKEN');
    expect(err!.message).not.toContain(TOKEN);
  });

  it('binds to loopback unless --listen, and refuses --listen without a token', async () => {
    const wide = await startHttpBinary(serverArgs(env.fake, 'teaching', ['--http', '0.0.0.0:0']), mcpEnv());
    expect(wide.code).toBe(2);
    expect(wide.stderr).toContain('not a loopback address; add --listen');
    const noToken = await startHttpBinary(serverArgs(env.fake, 'teaching', ['--http', '0.0.0.0:0', '--listen']), mcpEnv());
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain('without a bearer token');
    const bad = await startHttpBinary(serverArgs(env.fake, 'teaching', ['--http', 'nonsense']), mcpEnv());
    expect(bad.code).toBe(2);
  });
});

describe('gns3-copilot mcp --http with the token in the OS keychain', () => {
  let ss: SecretService;
  beforeAll(async () => {
    ss = await startSecretService();
  });
  afterAll(async () => ss?.stop());

  it('auth login --mcp-token stores it; the server then requires it', async () => {
    const envs: Record<string, string> = { ...mcpEnv(), ...ss.env };
    delete envs.GNS3_COPILOT_KEYCHAIN;
    const login = await runCli(['auth', 'login', '--mcp-token'], { env: envs, input: `${TOKEN}\n` });
    expect(login.code).toBe(0);
    expect(login.stdout).toContain('MCP server token stored');
    expect(login.stdout + login.stderr).not.toContain(TOKEN);

    // (tests only bind loopback; the non-loopback refusal is checked above, before any bind)
    const s = await startHttpBinary(serverArgs(env.fake, 'teaching', ['--http', '127.0.0.1:0']), envs);
    children.push(s.child);
    expect(s.stderr).toContain('bearer token required');
    const url = s.url!;
    expect((await post(url, {})).status).toBe(401);
    const client = new Client({ name: 'kc', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
    );
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(servedTools('teaching_assistant'));
    await client.close();
    const logout = await runCli(['auth', 'logout'], { env: envs });
    expect(logout.stdout).toContain('mcp_token');
  });
});

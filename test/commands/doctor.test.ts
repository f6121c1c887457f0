import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runCli, isolatedEnv } from '../helpers/cli-run.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';

/** A minimal OpenAI-compatible endpoint: GET /v1/models, 401 unless the key matches. */
async function startModelsServer(key: string): Promise<{ url: string; close(): Promise<void>; seenAuth: string[] }> {
  const seenAuth: string[] = [];
  const server: Server = createServer((req, res) => {
    seenAuth.push(String(req.headers.authorization));
    if (req.url !== '/v1/models') return void res.writeHead(404).end();
    if (req.headers.authorization !== `Bearer ${key}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'Incorrect API key provided' } }));
      return;
    }
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ object: 'list', data: [{ id: 'gpt-4o-mini', object: 'model' }] }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/v1`, seenAuth, close: () => new Promise((r) => server.close(() => r())) };
}

/** A port with nothing listening: bind, note the port, close. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('doctor', () => {
  let gns3: FakeGns3;
  let llm: Awaited<ReturnType<typeof startModelsServer>>;
  const KEY = 'sk-doctor-test-123456';
  const GNS3_PASSWORD = 'doctor-pw-5c1e';
  /** the controller's login comes from the environment (no keychain here) */
  const creds = { GNS3_USER: 'admin', GNS3_PASSWORD };
  beforeAll(async () => {
    gns3 = await startFakeGns3({ api: 'v3', users: { admin: GNS3_PASSWORD } });
    llm = await startModelsServer(KEY);
  });
  afterAll(async () => {
    await gns3?.close();
    await llm?.close();
  });

  it('all required checks pass: exit 0 with a ✓ line each', async () => {
    const env = isolatedEnv({ GNS3_COPILOT_API_KEY: KEY, ...creds });
    const r = await runCli(['doctor', '--server', gns3.url, '--base-url', llm.url, '--provider', 'custom'], { env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^✓ Node \d+\.\d+\.\d+ \(needs >= 20\.19\)$/m);
    expect(r.stdout).toMatch(/^✓ config valid/m);
    expect(r.stdout).toMatch(
      new RegExp(
        `^✓ GNS3 controller at ${gns3.url}: API v3, version 3\\.0\\.6, logged in as admin \\(credentials from env GNS3_USER/GNS3_PASSWORD\\)$`,
        'm',
      ),
    );
    expect(r.stdout).not.toContain(GNS3_PASSWORD);
    expect(r.stdout).toMatch(/^✓ LLM endpoint http:\/\/127\.0\.0\.1:\d+\/v1 \(custom\): reachable, key accepted, model gpt-4o-mini$/m);
    // no Secret Service in this env: a warning, not a failure
    expect(r.stdout).toMatch(/^! OS keychain unavailable: no Secret Service/m);
    expect(r.stdout).toMatch(/^[✓!] tshark/m);
    expect(r.stdout).toContain('all required checks passed');
    expect(r.stdout).not.toContain(KEY);
  });

  it('--json reports every check', async () => {
    const env = isolatedEnv({ GNS3_COPILOT_API_KEY: KEY, ...creds });
    const r = await runCli(['doctor', '--json', '-s', gns3.url, '--base-url', llm.url], { env });
    const out = JSON.parse(r.stdout) as { ok: boolean; checks: { name: string; ok: boolean; required: boolean }[] };
    expect(out.ok).toBe(true);
    expect(out.checks.map((c) => c.name)).toEqual(['node', 'config', 'keychain', 'controller', 'llm', 'data', 'tshark']);
  });

  it("says where the project's topology comes from: the stream, or reads on an auto_close project; it neither opens nor listens", async () => {
    const env = isolatedEnv({ GNS3_COPILOT_API_KEY: KEY, ...creds });
    const shared = gns3.addProject({ name: 'shared-lab', auto_close: false });
    const api = gns3.addProject({ name: 'api-lab', auto_close: true, status: 'closed' });
    const doctor = (...more: string[]) => runCli(['doctor', '-s', gns3.url, '--base-url', llm.url, ...more], { env });
    let r = await doctor('--project', 'shared-lab');
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/^✓ project shared-lab: notification stream \(notifications auto, auto_close off\) — live topology/m);
    r = await doctor('--project', 'api-lab');
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(
      /^✓ project api-lab: topology reads \(notifications auto, auto_close on\) — the project has auto_close on: the copilot does not listen/m,
    );
    // notifications always on an auto_close project: it would listen, and the controller closes the project when it leaves
    r = await runCli(['doctor', '-s', gns3.url, '--base-url', llm.url, '--project', 'api-lab'], {
      env: { ...env, GNS3_COPILOT_NOTIFICATIONS: 'always' },
    });
    expect(r.stdout).toMatch(
      /^! project api-lab: notification stream \(notifications always, auto_close on\) — .*closes it \(stopping its nodes\)/m,
    );
    expect(r.code, r.stdout).toBe(0);
    r = await doctor('--project', 'no-such-lab', '--json');
    const out = JSON.parse(r.stdout) as { ok: boolean; checks: { name: string; ok: boolean; required: boolean; detail: string }[] };
    expect(out.checks.at(-1)).toMatchObject({ name: 'topology', ok: false, required: false });
    expect(out.checks.at(-1)!.detail).toMatch(/^project no-such-lab: /);
    // reads only: the closed project stays closed and nothing listened to either
    expect(gns3.project(api).data.status).toBe('closed');
    expect(gns3.notifications.count(api) + gns3.notifications.count(shared)).toBe(0);
    // four runs of the CLI on a loaded machine
  }, 180_000);

  it('an unreachable controller fails with exit 3', async () => {
    const env = isolatedEnv({ GNS3_COPILOT_API_KEY: KEY });
    const r = await runCli(['doctor', '-s', `http://127.0.0.1:${await closedPort()}`, '--base-url', llm.url], { env });
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/^✗ .*127\.0\.0\.1/m);
    expect(r.stdout).toMatch(/^✓ LLM endpoint/m);
    expect(r.stdout).toContain('1 required check failed');
  });

  it('on GNS3 v3 a missing or rejected login fails the controller check (exit 3), naming where the credentials came from', async () => {
    let r = await runCli(['doctor', '-s', gns3.url, '--base-url', llm.url], { env: isolatedEnv({ GNS3_COPILOT_API_KEY: KEY }) });
    expect(r.code, r.stdout).toBe(3);
    expect(r.stdout).toMatch(
      /^✗ GNS3 controller at .* \(API v3\) requires a login; store credentials with `gns3-copilot auth login` or set GNS3_USER\/GNS3_PASSWORD$/m,
    );
    expect(r.stdout).toMatch(/^✓ LLM endpoint/m);
    r = await runCli(['doctor', '-s', gns3.url, '--base-url', llm.url], {
      env: isolatedEnv({ GNS3_COPILOT_API_KEY: KEY, GNS3_USER: 'admin', GNS3_PASSWORD: 'wrongpw' }),
    });
    expect(r.code, r.stdout).toBe(3);
    expect(r.stdout).toMatch(
      /^✗ GNS3 controller at .* rejected the login for user "admin": Authentication was unsuccessful\. \(credentials from env GNS3_USER\/GNS3_PASSWORD\)$/m,
    );
    expect(r.stdout).toContain('1 required check failed');
    expect(r.stdout).not.toContain('wrongpw');
  });

  it('a failing mcp_servers entry fails with the documented exit 2, not 1', async () => {
    const env = isolatedEnv({ GNS3_COPILOT_API_KEY: KEY, ...creds });
    mkdirSync(join(env.XDG_CONFIG_HOME!, 'gns3-copilot'), { recursive: true });
    writeFileSync(
      join(env.XDG_CONFIG_HOME!, 'gns3-copilot', 'config.json'),
      JSON.stringify({ mcp_servers: { inventory: { command: join(env.HOME!, 'no-such-mcp-server') } } }),
    );
    const r = await runCli(['doctor', '-s', gns3.url, '--base-url', llm.url], { env });
    expect(r.stdout).toMatch(/^✓ GNS3 controller/m);
    expect(r.stdout).toMatch(/^✗ MCP server inventory: /m);
    expect(r.code, r.stdout).toBe(2);
  });

  it('a rejected API key fails with exit 4', async () => {
    const env = isolatedEnv({ GNS3_COPILOT_API_KEY: 'sk-wrong-key-000', ...creds });
    const r = await runCli(['doctor', '-s', gns3.url, '--base-url', llm.url], { env });
    expect(r.code, r.stdout).toBe(4);
    expect(r.stdout).toMatch(/^✗ LLM endpoint .*: API key rejected \(HTTP 401\)$/m);
    expect(llm.seenAuth).toContain('Bearer sk-wrong-key-000');
    expect(r.stdout).not.toContain('sk-wrong-key-000');
  });

  it('a missing API key and an unreachable LLM are failures', async () => {
    let r = await runCli(['doctor', '-s', gns3.url, '--base-url', llm.url], { env: isolatedEnv(creds) });
    expect(r.code).toBe(4);
    expect(r.stdout).toMatch(/^✗ LLM endpoint .*: no API key/m);
    r = await runCli(['doctor', '-s', gns3.url, '--base-url', `http://127.0.0.1:${await closedPort()}/v1`], {
      env: isolatedEnv({ OPENAI_API_KEY: KEY, ...creds }),
    });
    expect(r.code).toBe(4);
    expect(r.stdout).toMatch(/^✗ LLM endpoint .*: unreachable \(ECONNREFUSED\)$/m);
  });

  it('an invalid config is reported as a failed check (exit 2), the other checks still run', async () => {
    const env = isolatedEnv({ GNS3_COPILOT_API_KEY: KEY, GNS3_COPILOT_MAX_ITERATIONS: '0', ...creds });
    const r = await runCli(['doctor', '-s', gns3.url, '--base-url', llm.url], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^✗ GNS3_COPILOT_MAX_ITERATIONS: must be an integer 1\.\.100 \(got 0\)$/m);
    expect(r.stdout).toMatch(/^✓ LLM endpoint/m);
  });
});

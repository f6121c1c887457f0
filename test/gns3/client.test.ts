/**
 * GNS3 client paths over real HTTP to the fake controller, for both API versions:
 * detection, auth, projects, errors (unreachable, non-JSON, 500, timeouts), topology.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ControllerError, UsageError } from '../../src/errors.js';
import { createGns3Client } from '../../src/gns3/client.js';
import { Gns3ApiError, errorBodyMessage } from '../../src/gns3/errors.js';
import { probeController } from '../../src/gns3/probe.js';
import { nullLogger } from '../../src/log.js';
import { settingsSchema } from '../../src/config/schema.js';
import { memoryTokenStore } from '../../src/gns3/auth.js';
import { ADMIN, rig, type Rig } from './helpers.js';

let current: Rig | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function plainServer(handler: http.RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
  const s = http.createServer(handler);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        s.closeAllConnections();
        s.close(() => r());
      }),
  };
}

describe('probeController', () => {
  it.each(['v2', 'v3'] as const)('detects %s and its version', async (api) => {
    current = await rig(api);
    expect(await probeController(current.fake.url)).toEqual({ api, version: api === 'v2' ? '2.2.59' : '3.0.6' });
    // a URL typed with the version suffix and a trailing slash is the same server
    expect((await probeController(`${current.fake.url}/${api}/`)).api).toBe(api);
  });

  it('reports an unreachable controller as a ControllerError', async () => {
    const port = await closedPort();
    const err = await probeController(`http://127.0.0.1:${port}`, { timeoutMs: 1000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ControllerError);
    expect((err as Error).message).toBe(`GNS3 controller at http://127.0.0.1:${port} is unreachable: connection refused`);
    expect((err as ControllerError).exitCode).toBe(3);
  });

  it('says when the server is not GNS3', async () => {
    const s = await plainServer((_q, r) => {
      r.writeHead(404, { 'content-type': 'text/html' });
      r.end('<html>nope</html>');
    });
    try {
      await expect(probeController(s.url)).rejects.toThrow(/is not a GNS3 server \(HTTP 404 on \/v3\/version, 404 on \/v2\/version\)/);
    } finally {
      await s.close();
    }
  });

  it('names the target of a redirect (http -> https)', async () => {
    const s = await plainServer((q, r) => {
      r.writeHead(301, { location: `https://gns3.example.test${q.url}` });
      r.end();
    });
    try {
      await expect(probeController(s.url)).rejects.toThrow(/redirects to https:\/\/gns3\.example\.test\/v3\/version; use that address/);
    } finally {
      await s.close();
    }
  });

  it('explains a TLS handshake against a plain-http port', async () => {
    const s = await plainServer((_q, r) => r.end('x'));
    try {
      await expect(probeController(s.url.replace('http:', 'https:'))).rejects.toThrow(
        /TLS handshake failed \(is the server plain http\?\)/,
      );
    } finally {
      await s.close();
    }
  });

  it('times out on a server that never answers', async () => {
    const s = await plainServer(() => undefined);
    try {
      const t0 = Date.now();
      await expect(probeController(s.url, { timeoutMs: 300 })).rejects.toThrow(/did not answer GET \/v3\/version within 0.3 s/);
      expect(Date.now() - t0).toBeLessThan(3000);
    } finally {
      await s.close();
    }
  });
});

describe('v3 authentication', () => {
  it('logs in with the credentials, stores the JWT and reuses it', async () => {
    current = await rig('v3');
    current.fake.addProject({ name: 'p1' });
    expect((await current.client.listProjects()).map((p) => p.name)).toEqual(['p1']);
    const token = await current.tokens.get();
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const logins = current.fake.requests.filter((r) => r.path === '/v3/access/users/authenticate');
    expect(logins).toHaveLength(1);
    expect(JSON.parse(logins[0]!.body)).toEqual({ username: ADMIN.username, password: ADMIN.password });
    const last = current.fake.requests.at(-1)!;
    expect(last.headers.authorization).toBe(`Bearer ${token}`);

    // a second client with the stored token does not log in again
    const again = createGns3Client({
      settings: current.settings,
      log: nullLogger,
      credentials: async () => ADMIN,
      tokenStore: current.tokens,
    });
    await again.listProjects();
    await again.close();
    expect(current.fake.requests.filter((r) => r.path === '/v3/access/users/authenticate')).toHaveLength(1);
  });

  it('logs in again once when the token is rejected (expired)', async () => {
    current = await rig('v3');
    await current.client.listProjects();
    const first = await current.tokens.get();
    current.fake.revokeTokens();
    await current.client.listProjects();
    expect(await current.tokens.get()).not.toBe(first);
    expect(current.fake.requests.filter((r) => r.path === '/v3/access/users/authenticate')).toHaveLength(2);
  });

  it('reports wrong credentials with the server message, exit 3', async () => {
    current = await rig('v3', {}, {}, { username: 'admin', password: 'wrong' });
    const err = await current.client.listProjects().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ControllerError);
    expect((err as Error).message).toMatch(/rejected the login for user "admin": Authentication was unsuccessful\./);
    expect((err as Error).message).not.toContain('wrong');
  });

  it('asks for credentials when none are stored', async () => {
    current = await rig('v3', {}, {}, null);
    await expect(current.client.listProjects()).rejects.toThrow(/requires a login; store credentials with `gns3-copilot auth login`/);
  });

  it('a garbage stored token is replaced by a fresh login', async () => {
    current = await rig('v3');
    const tokens = memoryTokenStore('garbage.token.value');
    const c = createGns3Client({ settings: current.settings, log: nullLogger, credentials: async () => ADMIN, tokenStore: tokens });
    await c.listProjects();
    await c.close();
    expect(await tokens.get()).not.toBe('garbage.token.value');
    const rejected = current.fake.requests.find((r) => r.headers.authorization === 'Bearer garbage.token.value');
    expect(rejected).toBeDefined();
  });
});

describe('v2 basic auth', () => {
  it('sends basic auth when the server requires it', async () => {
    current = await rig('v2', { users: { admin: 'admin-pass' } });
    current.fake.addProject({ name: 'p' });
    expect(await current.client.listProjects()).toHaveLength(1);
    expect(current.fake.requests.at(-1)!.headers.authorization).toBe(`Basic ${Buffer.from('admin:admin-pass').toString('base64')}`);
  });

  it('wrong basic-auth credentials are a ControllerError', async () => {
    current = await rig('v2', { users: { admin: 'other' } }, { api_version: 'v2' });
    await expect(current.client.listProjects()).rejects.toThrow(/rejected the credentials/);
  });

  it('detects a v2 server behind basic auth using the credentials', async () => {
    current = await rig('v2', { users: { admin: 'admin-pass' } });
    expect(await current.client.api()).toBe('v2');
    await expect(probeController(current.fake.url)).rejects.toThrow(/requires authentication \(HTTP 401 on \/v2\/version\)/);
    expect(await probeController(current.fake.url, { credentials: ADMIN })).toEqual({ api: 'v2', version: '2.2.59' });
    await expect(probeController(current.fake.url, { credentials: { username: 'admin', password: 'x' } })).rejects.toThrow(
      /rejected the GNS3 credentials/,
    );
  });
});

describe.each(['v2', 'v3'] as const)('projects and errors (%s)', (api) => {
  it('finds projects by id or case-insensitive name and opens closed ones', async () => {
    current = await rig(api);
    const id = current.fake.addProject({ name: 'OSPF-Lab', status: 'closed' });
    current.fake.addProject({ name: 'other' });
    const p = await current.client.openProject('ospf-lab');
    expect(p.projectId).toBe(id);
    expect(current.fake.project(id).data.status).toBe('opened');
    expect((await current.client.openProject(id)).projectName).toBe('OSPF-Lab');
  });

  it('project not found is a usage error listing the projects', async () => {
    current = await rig(api);
    current.fake.addProject({ name: 'alpha' });
    current.fake.addProject({ name: 'beta' });
    const err = await current.client.openProject('gamma').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toBe('GNS3 project "gamma" not found (available: alpha, beta)');
  });

  it('carries the server message, status, method and path in Gns3ApiError', async () => {
    current = await rig(api);
    const pid = current.fake.addProject({ name: 'p' });
    const err = await current.client.call('GET', `/projects/${pid}/nodes/00000000-0000-0000-0000-000000000000`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Gns3ApiError);
    const e = err as Gns3ApiError;
    expect(e.status).toBe(404);
    expect(e.serverMessage).toBe("Node ID 00000000-0000-0000-0000-000000000000 doesn't exist");
    expect(e.method).toBe('GET');
    expect(e.path).toBe(`/${api}/projects/${pid}/nodes/00000000-0000-0000-0000-000000000000`);
  });

  it('a non-JSON success body is a clear error', async () => {
    current = await rig(api);
    await current.client.api();
    current.fake.inject({ path: `/${api}/projects`, status: 200, body: '<html>proxy login</html>', contentType: 'text/html' });
    await expect(current.client.listProjects()).rejects.toThrow(/the controller sent a non-JSON response \(text\/html\)/);
  });

  it('a 500 with a v2 traceback never shows server paths', async () => {
    current = await rig(api);
    await current.client.api();
    const tb = JSON.stringify({
      message:
        'Traceback (most recent call last):\n  File "/usr/share/gns3/gns3server/controller/project.py", line 9, in x\nFileNotFoundError: [Errno 2] No such file: \'/home/gns3/GNS3/projects/x/y.gns3\'',
      status: 500,
    });
    current.fake.inject({ path: `/${api}/projects`, status: 500, body: tb });
    const err = (await current.client.listProjects().catch((e: unknown) => e)) as Gns3ApiError;
    expect(err.status).toBe(500);
    expect(err.serverMessage).toBe("internal server error (FileNotFoundError: [Errno 2] No such file: '<path>')");
    expect(err.message).not.toMatch(/home|usr/);
  });

  it('retries an idempotent GET after a dropped connection', async () => {
    current = await rig(api);
    current.fake.addProject({ name: 'p' });
    await current.client.api();
    current.fake.inject({ path: `/${api}/projects`, destroy: true });
    expect(await current.client.listProjects()).toHaveLength(1);
  });

  it('does not retry a POST after a dropped connection', async () => {
    current = await rig(api);
    await current.client.api();
    current.fake.inject({ method: 'POST', path: `/${api}/projects`, destroy: true });
    await expect(current.client.createProject('x')).rejects.toThrow(/closed the connection during POST \/v[23]\/projects/);
    expect(current.fake.requests.filter((r) => r.method === 'POST' && r.path === `/${api}/projects`)).toHaveLength(1);
  });

  it('a slow server past the request timeout is a ControllerError', async () => {
    current = await rig(api, {}, { request_timeout_ms: 300 });
    await current.client.api();
    current.fake.inject({ path: `/${api}/projects`, delayMs: 1500, times: 5 });
    const t0 = Date.now();
    const err = await current.client.listProjects().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ControllerError);
    expect((err as Error).message).toMatch(/did not answer GET \/v[23]\/projects within 0.3 s/);
    expect(Date.now() - t0).toBeLessThan(1400);
  });

  it('duplicate project names give the 409 text', async () => {
    current = await rig(api);
    current.fake.addProject({ name: 'dup' });
    await expect(current.client.createProject('dup')).rejects.toThrow('Project "dup" already exists (HTTP 409 on POST');
  });
});

describe.each(['v2', 'v3'] as const)('server validation errors (%s)', (api) => {
  it('turns schema errors into one readable line', async () => {
    current = await rig(api);
    const pid = current.fake.addProject({ name: 'p' });
    const vpcs = (await current.client.listTemplates()).find((t) => t.name === 'VPCS')!;
    const err = (await current.client
      .call('POST', `/projects/${pid}/templates/${vpcs.template_id}`, { body: { y: 1, compute_id: 'local' } })
      .catch((e: unknown) => e)) as Gns3ApiError;
    expect(err.status).toBe(api === 'v2' ? 400 : 422);
    expect(err.serverMessage).toBe(
      api === 'v2' ? "invalid request: 'x' is a required property" : 'invalid request: body.x: Field required',
    );
  });
});

describe('secrets stay out of logs', () => {
  it('never logs the password or the token', async () => {
    const lines: string[] = [];
    const rec = (level: string) => (msg: string, data?: Record<string, unknown>) =>
      lines.push(`${level} ${msg} ${JSON.stringify(data ?? {})}`);
    current = await rig('v3');
    const log = { error: rec('error'), warn: rec('warn'), info: rec('info'), debug: rec('debug') };
    const c = createGns3Client({ settings: current.settings, log, credentials: async () => ADMIN, tokenStore: current.tokens });
    current.fake.addProject({ name: 'p' });
    await c.listProjects();
    current.fake.revokeTokens();
    await c.listProjects();
    await c.close();
    const token = (await current.tokens.get())!;
    expect(lines.length).toBeGreaterThan(2);
    const all = lines.join('\n');
    expect(all).not.toContain(ADMIN.password);
    expect(all).not.toContain(token);
  });
});

describe('error body parsing', () => {
  it('makes v3 422 Python-repr messages readable', () => {
    const body = JSON.stringify({ message: "[{'type': 'missing', 'loc': ('body', 'name'), 'msg': 'Field required', 'input': {}}]" });
    expect(errorBodyMessage(422, body, 'application/json')).toBe('invalid request: body.name: Field required');
    const two = JSON.stringify({
      message:
        "[{'type': 'missing', 'loc': ('body',), 'msg': 'Field required', 'input': None}, {'type': 'int_parsing', 'loc': ('body', 'x'), 'msg': \"Input should be a valid integer, unable to parse string as an integer\", 'input': 'a'}]",
    });
    expect(errorBodyMessage(422, two, 'application/json')).toBe(
      'invalid request: body: Field required; body.x: Input should be a valid integer, unable to parse string as an integer',
    );
  });

  it('handles v2 {message,status}, v3 {detail}, text/plain, empty and schema dumps', () => {
    expect(errorBodyMessage(409, '{"message": "Port is already used", "status": 409}', 'application/json')).toBe('Port is already used');
    expect(errorBodyMessage(404, '{"detail":"Not Found"}', 'application/json')).toBe('Not Found');
    expect(errorBodyMessage(404, '404: Not Found', 'text/plain')).toBe('Not Found');
    expect(errorBodyMessage(500, 'Internal Server Error', 'text/plain')).toBe('Internal Server Error');
    expect(errorBodyMessage(502, '', '')).toBe('HTTP 502 with an empty body');
    expect(
      errorBodyMessage(
        400,
        JSON.stringify({
          message:
            "JSON schema error with API request '/v2/projects/x/nodes' and JSON data '{'a': 1}': 'compute_id' is a required property",
          status: 400,
        }),
        'application/json',
      ),
    ).toBe("invalid request: 'compute_id' is a required property");
    expect(errorBodyMessage(422, JSON.stringify({ detail: [{ loc: ['body', 'x'], msg: 'Field required' }] }), 'application/json')).toBe(
      'invalid request: body.x: Field required',
    );
  });
});

describe('insecure TLS', () => {
  it('returns and logs a warning only for https controllers', () => {
    const warned: string[] = [];
    const log = { ...nullLogger, warn: (m: string) => warned.push(m) };
    const https = createGns3Client({ settings: settingsSchema.parse({ server: 'https://127.0.0.1:3443', insecure: true }), log });
    expect(https.warnings).toEqual(['TLS certificate verification of the GNS3 controller is disabled (--insecure)']);
    expect(warned).toHaveLength(1);
    const plain = createGns3Client({ settings: settingsSchema.parse({ server: 'http://127.0.0.1:3080', insecure: true }), log });
    expect(plain.warnings).toEqual([]);
    void https.close();
    void plain.close();
  });
});

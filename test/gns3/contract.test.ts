/**
 * Contract test: the same assertions against the fake controller (v2 and v3)
 * and, when configured, against a real gns3-server. Passing on both is what
 * keeps the fake honest.
 *
 * Run against a real server (2.2.x or 3.x; the project it creates is deleted at the end):
 *
 *   GNS3_TEST_SERVER=http://127.0.0.1:3080 npx vitest run test/gns3/contract.test.ts
 *   GNS3_TEST_SERVER=http://127.0.0.1:3081 GNS3_TEST_USER=admin GNS3_TEST_PASSWORD=admin \
 *     npx vitest run test/gns3/contract.test.ts
 *
 * The server needs the builtin VPCS template and the `vpcs` binary (for start/stop).
 * Without GNS3_TEST_SERVER only the fake runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settingsSchema } from '../../src/config/schema.js';
import { UsageError } from '../../src/errors.js';
import { memoryTokenStore } from '../../src/gns3/auth.js';
import { createGns3Client, type Gns3Client } from '../../src/gns3/client.js';
import { Gns3ApiError } from '../../src/gns3/errors.js';
import { probeController } from '../../src/gns3/probe.js';
import type { Gns3Project } from '../../src/gns3/project.js';
import { nullLogger } from '../../src/log.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';

interface Target {
  label: string;
  start(): Promise<{ url: string; creds?: { username: string; password: string }; stop(): Promise<void> }>;
}

const fakeTarget = (api: 'v2' | 'v3'): Target => ({
  label: `fake ${api}`,
  async start() {
    const creds = { username: 'admin', password: 'contract-pw' };
    const fake: FakeGns3 = await startFakeGns3({ api, users: api === 'v3' ? { admin: creds.password } : undefined });
    return { url: fake.url, creds: api === 'v3' ? creds : undefined, stop: () => fake.close() };
  },
});

const targets: Target[] = [fakeTarget('v2'), fakeTarget('v3')];
if (process.env.GNS3_TEST_SERVER) {
  const url = process.env.GNS3_TEST_SERVER;
  const user = process.env.GNS3_TEST_USER;
  const password = process.env.GNS3_TEST_PASSWORD;
  targets.push({
    label: `real ${url}`,
    start: async () => ({ url, creds: user && password ? { username: user, password } : undefined, stop: async () => undefined }),
  });
}

describe.each(targets)('GNS3 API contract: $label', (target) => {
  let stop: () => Promise<void>;
  let url: string;
  let client: Gns3Client;
  let api: 'v2' | 'v3';
  let project: Gns3Project;
  const projectName = `copilot-contract-${process.pid}-${Date.now()}`;

  beforeAll(async () => {
    const t = await target.start();
    stop = () => t.stop();
    url = t.url;
    const settings = settingsSchema.parse({ server: url, request_timeout_ms: 20_000 });
    client = createGns3Client({ settings, log: nullLogger, credentials: async () => t.creds, tokenStore: memoryTokenStore() });
    api = await client.api();
    const created = await client.createProject(projectName);
    expect(created.status).toBe('opened');
    project = await client.openProject(projectName);
  });

  afterAll(async () => {
    if (project) await client.deleteProject(project.projectId).catch(() => undefined);
    await client?.close();
    await stop?.();
  });

  it('probes the version', async () => {
    const v = await probeController(url);
    expect(v.api).toBe(api);
    expect(v.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('lists the builtin templates', async () => {
    const templates = await client.listTemplates();
    const vpcs = templates.find((t) => t.name === 'VPCS');
    expect(vpcs).toMatchObject({ template_type: 'vpcs', category: 'guest', builtin: true });
    expect(templates.find((t) => t.name === 'Ethernet switch')).toMatchObject({ template_type: 'ethernet_switch', category: 'switch' });
  });

  it('project not found is a usage error', async () => {
    await expect(client.openProject(`${projectName}-missing`)).rejects.toBeInstanceOf(UsageError);
    const err = (await client.call('GET', '/projects/00000000-0000-4000-8000-000000000000').catch((e: unknown) => e)) as Gns3ApiError;
    expect(err.status).toBe(404);
    expect(err.serverMessage).toBe("Project ID 00000000-0000-4000-8000-000000000000 doesn't exist");
  });

  it('creates nodes from templates with the server name de-duplication', async () => {
    const pc1 = await project.createNode({ template: 'VPCS', name: 'PC1', x: 0, y: 0 });
    expect(pc1).toMatchObject({ name: 'PC1', node_type: 'vpcs', node_status: 'stopped', ports: 'e0' });
    expect(pc1.console).toMatch(/^telnet [^ ]+:\d+$/);
    const dup = await project.createNode({ template: 'VPCS', name: 'PC1', x: 150, y: 0 });
    expect(dup.name).toBe('PC2');
    expect(dup.requested_name).toBe('PC1');
    const sw = await project.createNode({ template: 'Ethernet switch', name: 'SW1', x: 0, y: 150 });
    expect(sw).toMatchObject({ name: 'SW1', node_type: 'ethernet_switch', node_status: 'started', ports: 'e0-e7' });
  });

  it('links ports and refuses a used port with 409 "Port is already used"', async () => {
    const link = await project.createLink({ node_a: 'PC1', port_a: 'e0', node_b: 'SW1', port_b: 'e0' });
    expect(link).toMatchObject({ a: 'PC1:e0', b: 'SW1:e0' });
    /** What the controller answers to a raw POST /links between adapter-0 ports `[node, port]`. */
    const rawLinkError = async (...ends: [string, number][]) => {
      const nodes = [];
      for (const [name, port] of ends)
        nodes.push({ node_id: (await project.resolveNode(name)).node_id, adapter_number: 0, port_number: port });
      return (await project.call('POST', '/links', { body: { nodes } }).catch((e: unknown) => e)) as Gns3ApiError;
    };
    const used = await rawLinkError(['PC1', 0], ['SW1', 1]);
    expect(used.status).toBe(409);
    expect(used.serverMessage).toBe('Port is already used');
    const bad = await rawLinkError(['PC2', 5], ['SW1', 2]);
    expect(bad.status).toBe(404);
    expect(bad.serverMessage).toBe('Port 0/5 for PC2 not found');
  });

  it('starts and stops a node (status by polling)', async () => {
    const started = await project.nodeAction('PC1', 'start', { deadlineMs: 20_000 });
    expect(started.node_status).toBe('started');
    const stopped = await project.nodeAction('pc1', 'stop', { deadlineMs: 20_000 });
    expect(stopped.node_status).toBe('stopped');
  });

  it('sets, reads and clears link filters', async () => {
    const { link, filters } = await project.availableFilters('PC1 SW1');
    expect(filters.map((f) => f.type).sort()).toEqual(['bpf', 'corrupt', 'delay', 'frequency_drop', 'packet_loss']);
    const set = await project.putFilters(link.link_id, { packet_loss: [30], bpf: ['icmp\nudp'] });
    expect(set.filters).toEqual({ packet_loss: [30], bpf: ['icmp\nudp'] });
    const dropped = await project.putFilters(link.link_id, { packet_loss: [0] });
    expect(dropped.filters).toEqual({});
    const cleared = await project.putFilters(link.link_id, {});
    expect(cleared.filters).toEqual({});
  });

  it('a capture stream without an active capture is 409', async () => {
    const link = await project.resolveLink('PC1 SW1');
    const res = await client.openStream(`/projects/${project.projectId}/links/${link.link_id}/${api === 'v2' ? 'pcap' : 'capture/stream'}`);
    expect(res.status).toBe(409);
    const body = JSON.parse(await res.body.text()) as { message: string };
    expect(body.message).toBe('This link has no active packet capture');
  });

  it('v3 needs a token; cross-version routes are 404', async () => {
    if (api === 'v3') {
      const res = await client.http.send('GET', '/v3/projects');
      expect(res.status).toBe(401);
      expect(JSON.parse(res.text)).toEqual({ message: 'Not authenticated' });
      const cross = await client
        .call('POST', `/projects/${project.projectId}/links/00000000-0000-4000-8000-000000000000/start_capture`)
        .catch((e: unknown) => e);
      expect((cross as Gns3ApiError).status).toBe(404);
    } else {
      const res = await client.http.send('GET', '/v2/nothing-here');
      expect(res.status).toBe(404);
      expect(res.text).toBe('404: Not Found');
    }
  });

  it('a closed project refuses node starts with 403; the scope re-opens it', async () => {
    await client.call('POST', `/projects/${project.projectId}/close`, { body: {} });
    const pc1 = await project.resolveNode('PC1');
    const err = (await client
      .call('POST', `/projects/${project.projectId}/nodes/${pc1.node_id}/start`, { body: {} })
      .catch((e: unknown) => e)) as Gns3ApiError;
    expect(err.status).toBe(403);
    expect(err.serverMessage).toBe('The project is not opened');
    // the project scope re-opens it and retries
    const again = await project.nodeAction('PC1', 'stop', { deadlineMs: 20_000 });
    expect(again.node_status).toBe('stopped');
    expect((await client.findProject(project.projectId)).status).toBe('opened');
  });
});

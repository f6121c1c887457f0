/**
 * MCP's topology resource (and the mode prompts) honour topology_inline_max as the agent's
 * system prompt does: a lab up to the setting is listed whole (the resource with free ports),
 * a larger one is the summary, and a client reads the part it needs with
 * gns3_topology_reader's `nodes`. The built binary over stdio, the fake controller over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { BIN } from '../helpers/cli-run.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { seedRouterRing } from '../fakes/gns3/lab-seed.js';
import { mcpEnv, stdioClient, structured } from './helpers.js';

let fake: FakeGns3;
let projectId: string;
const open: Client[] = [];

beforeAll(async () => {
  fake = await startFakeGns3({ api: 'v2' });
  seedRouterRing(fake, 'ring40', 40);
  projectId = fake.project('ring40').data.project_id;
});
afterAll(async () => {
  for (const c of open) await c.close();
  await fake.close();
});

async function connect(env: Record<string, string> = {}): Promise<Client> {
  const { client } = await stdioClient([BIN, 'mcp', '-s', fake.url, '--project', 'ring40', '-m', 'lab'], mcpEnv(env));
  open.push(client);
  return client;
}

const textOf = (r: { contents: ({ text: string } | { blob: string })[] }) => r.contents.map((c) => ('text' in c ? c.text : '')).join('');
const uri = () => `gns3://project/${projectId}/topology`;

describe('MCP topology resource and topology_inline_max', () => {
  it('up to the setting the resource lists every node with its free ports, the prompt without them', async () => {
    const client = await connect();
    const topo = textOf(await client.readResource({ uri: uri() }));
    expect(topo.split('\n')[0]).toBe('Project ring40: 40 nodes, 50 links');
    for (let i = 1; i <= 40; i++) expect(topo).toMatch(new RegExp(`^R${i} `, 'm'));
    expect(topo).toMatch(/^R2 .* free e2,e3$/m);
    const prompt = await client.getPrompt({ name: 'lab_automation_assistant' });
    const body = (prompt.messages[0]!.content as { text: string }).text;
    expect(body).toMatch(/^R2 \d+ e0-R3:e1$/m);
    expect(body).not.toMatch(/ free e\d/);
  });

  it('above it (GNS3_COPILOT_TOPOLOGY_INLINE_MAX) resource and prompt are the summary, and the reader reads a part by glob', async () => {
    const client = await connect({ GNS3_COPILOT_TOPOLOGY_INLINE_MAX: '39' });
    const topo = textOf(await client.readResource({ uri: uri() }));
    expect(topo.split('\n').slice(0, 2)).toEqual([
      'Project ring40: 40 nodes, 50 links',
      'Too many nodes to list here: read them with gns3_topology_reader — nodes ["R1","R[1-4]","PC*"] gives just those nodes and their links, format text is compact.',
    ]);
    expect(topo).toContain('Names: R[1-40]');
    expect(topo).not.toMatch(/^R1 /m);
    const prompt = await client.getPrompt({ name: 'lab_automation_assistant' });
    expect((prompt.messages[0]!.content as { text: string }).text).toContain(topo);
    const part = structured(await client.callTool({ name: 'gns3_topology_reader', arguments: { nodes: ['R[1-2]'], format: 'text' } })) as {
      status: string;
      topology: string;
    };
    expect(part.status).toBe('success');
    const lines = part.topology.split('\n');
    expect(lines[0]).toBe('Project ring40: R[1-2]: 2 of 40 nodes, 4 links');
    expect(lines.filter((l) => /^R\d+ /.test(l)).map((l) => l.split(' ')[0])).toEqual(['R1', 'R2']);
  });
});

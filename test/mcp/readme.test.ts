/** The Claude Code and Gemini CLI snippets of docs/mcp.md start a working server (against a fake controller). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseMode } from '../../src/core/modes.js';
import { servedTools } from './served-tools.js';
import { BIN, ROOT } from '../helpers/cli-run.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { telnetNode } from '../fakes/gns3/nodes.js';
import { mcpEnv, stdioClient } from './helpers.js';

interface Snippet {
  mcpServers: Record<string, { command: string; args: string[]; env?: Record<string, string> }>;
}

const snippets: Snippet[] = [...readFileSync(join(ROOT, 'docs/mcp.md'), 'utf8').matchAll(/```json\n([\s\S]*?)```/g)]
  .map((m) => m[1]!)
  .filter((s) => s.includes('"mcpServers"'))
  .map((s) => JSON.parse(s) as Snippet);

let fake: FakeGns3;
beforeAll(async () => {
  fake = await startFakeGns3({ api: 'v2' });
  fake.addProject({ name: 'ospf-lab' });
  fake.addNode(telnetNode('R1', 5000, { template_name: 'FRR 8.4', project: 'ospf-lab' }));
});
afterAll(async () => {
  await fake?.close();
});

describe('docs/mcp.md client snippets', () => {
  it('has one for Claude Code and one for Gemini CLI', () => {
    expect(snippets).toHaveLength(2);
  });

  it.each([0, 1])('snippet %i starts the server, lists the mode tools and serves the topology', async (i) => {
    const entry = snippets[i]!.mcpServers.gns3!;
    expect(entry.command).toBe('gns3-copilot');
    const modeArg = entry.args[entry.args.indexOf('--mode') + 1]!;
    const { client } = await stdioClient([BIN, ...entry.args], mcpEnv({ ...entry.env, GNS3_SERVER: fake.url }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(servedTools(parseMode(modeArg)!));
      const { resources } = await client.listResources();
      const topo = resources.find((r) => r.uri.endsWith('/topology'))!;
      const read = await client.readResource({ uri: topo.uri });
      expect(JSON.stringify(read)).toContain('R1');
    } finally {
      await client.close();
    }
  });
});

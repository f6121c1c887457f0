/**
 * A small MCP server built with the SDK, standing in for a user's server
 * (e.g. NetBox) in client-side tests:
 *
 *   node --import tsx test/fakes/mcp/server.ts      (stdio; run from the repo root)
 *
 * Tools: `query` (read-only annotated: returns structured rows), `set_vlan` (no
 * annotation: config-changing for the copilot), `crash` (the process exits in
 * the middle of the call). FAKE_MCP_FAIL_START=1 exits before serving, and
 * FAKE_MCP_CALL_LOG=<file> appends one line per executed call, FAKE_MCP_PID_FILE=<file>
 * gets the server's pid (a test kills it at the moment it chooses), FAKE_MCP_START_DELAY_MS=<n>
 * starts serving n ms late (a slow server, e.g. one that npx is still installing).
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

if (process.env.FAKE_MCP_FAIL_START === '1') {
  process.stderr.write('fake mcp: cannot reach the inventory database\n');
  process.exit(1);
}

if (process.env.FAKE_MCP_PID_FILE) writeFileSync(process.env.FAKE_MCP_PID_FILE, String(process.pid));

const record = (line: string) => {
  if (process.env.FAKE_MCP_CALL_LOG) appendFileSync(process.env.FAKE_MCP_CALL_LOG, `${line}\n`);
};

const server = new McpServer({ name: 'fake-netbox', version: '1.0.0' });

server.registerTool(
  'query',
  {
    description: 'Query the inventory for devices matching a name',
    inputSchema: { q: z.string().describe('device name or prefix') },
    annotations: { readOnlyHint: true },
  },
  async ({ q }) => {
    record(`query ${q}`);
    const rows = [{ name: `${q}-core`, site: 'lab', role: 'router' }];
    return { content: [{ type: 'text', text: JSON.stringify({ rows }) }], structuredContent: { rows } };
  },
);

server.registerTool(
  'set_vlan',
  { description: 'Assign a VLAN to an interface in the inventory', inputSchema: { device: z.string(), vlan: z.number().int() } },
  async ({ device, vlan }) => {
    record(`set_vlan ${device} ${vlan}`);
    return { content: [{ type: 'text', text: `vlan ${vlan} set on ${device}` }] };
  },
);

server.registerTool('crash', { description: 'Crashes the server in the middle of the call', inputSchema: {} }, async () => {
  record('crash');
  setTimeout(() => process.exit(3), 50);
  return new Promise(() => {});
});

const startDelay = Number(process.env.FAKE_MCP_START_DELAY_MS ?? 0);
if (startDelay > 0) await new Promise((r) => setTimeout(r, startDelay));
await server.connect(new StdioServerTransport());

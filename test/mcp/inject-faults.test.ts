/**
 * `gns3-copilot mcp` in inject mode keeps the fault ledger: the SDK's own client on the
 * built binary over stdio, a fake GNS3 controller whose R1 is a real FRR router. A fault
 * an MCP client injects (with the `fault` argument its tool schema offers) is recorded
 * under the server's one session — the session its checkpoints are kept under — and
 * `gns3-copilot faults list|check`, spawned on the same data dir, see it open with its
 * repair check; a second fault of the category on R1 is refused while it is open. A server
 * that only reads never writes sessions.db.
 * Needs root + frr (fails, never skips, when missing). Run `npx tsup` first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startLab, type Lab } from '../lab/lab.js';
import { mcpEnv, serverArgs, startMcpLab, stdioClient, structured, text, type McpLab } from './helpers.js';
import { runCli } from '../helpers/cli-run.js';
import { SessionStore } from '../../src/sessions/store.js';

let lab: Lab;
let env: McpLab;
const clients: Client[] = [];
/** one data dir for the servers and the CLI runs of this file */
const cliEnv = mcpEnv();
const dataDir = join(cliEnv.HOME!, 'data');
cliEnv.GNS3_COPILOT_DATA_DIR = dataDir;

const running = () => lab.vtysh('R1', 'show running-config');
const cli = (args: string[]) => runCli([...args, '-s', env.fake.url, '--project', 'mcp-lab'], { env: cliEnv, timeoutMs: 60_000 });

async function connect(extra: string[] = []) {
  const c = await stdioClient(serverArgs(env.fake, 'inject', extra), cliEnv);
  clients.push(c.client);
  return c.client;
}

/** A fault of the client's own on R1's loopback: a description, undone by `no description`. */
const descriptionFault = (line: string) => ({
  device_configs: [{ device_name: 'R1', config_commands: ['interface lo', `description ${line}`] }],
  fault: {
    category: 'interface',
    difficulty: 'easy',
    restore_commands: ['interface lo', 'no description'],
    repair_check: { config: { device: 'R1', section: 'interface lo', lacks: `description ${line}` } },
  },
});

beforeAll(async () => {
  lab = await startLab({ routers: ['R1'], links: [] });
  env = await startMcpLab(lab);
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await env?.close();
  await lab?.stop();
});

describe('gns3-copilot mcp in inject mode records faults in the ledger', () => {
  it('a server that only reads leaves sessions.db alone', async () => {
    const client = await connect(['--approve', 'config']);
    const r = await client.callTool({
      name: 'execute_multiple_device_commands',
      arguments: { device_configs: [{ device_name: 'R1', commands: ['show ip route'] }] },
    });
    expect(structured(r).status).toBe('success');
    await client.close();
    expect(existsSync(join(dataDir, 'sessions.db'))).toBe(false);
  });

  it('tells the client what to pass: the `fault` argument in the tool schema, the instructions, and the refusal without it', async () => {
    const client = await connect(['--approve', 'config']);
    const { tools } = await client.listTools();
    const config = tools.find((t) => t.name === 'execute_multiple_device_config_commands')!;
    const fault = (config.inputSchema.properties as Record<string, { description?: string; properties?: Record<string, unknown> }>).fault!;
    expect(fault.description).toContain('inject mode (required there)');
    expect(Object.keys(fault.properties!)).toEqual([
      'scenario',
      'parameters',
      'category',
      'difficulty',
      'restore_commands',
      'repair_check',
    ]);
    expect(config.description).toContain('needs `fault`');
    expect(client.getInstructions()).toContain('need a `fault` argument');
    expect(tools.map((t) => t.name)).toContain('injection_skills');

    const bare = await client.callTool({
      name: 'execute_multiple_device_config_commands',
      arguments: { device_configs: descriptionFault('no-fault-arg').device_configs },
    });
    expect(bare.isError).toBe(true);
    expect(text(bare)).toContain('inject mode: every change is a fault recorded in the fault ledger: pass fault {scenario, parameters}');
    expect(running()).not.toContain('no-fault-arg');
    await client.close();
  });

  let sessionId: string;

  it('records a fault an MCP client injects; `faults list` and `faults check` see it open with its repair check', async () => {
    const client = await connect(['--approve', 'config']);
    const r = await client.callTool({ name: 'execute_multiple_device_config_commands', arguments: descriptionFault('broken-by-mcp') });
    expect(r.isError, text(r)).toBeFalsy();
    expect(structured(r).fault).toMatchObject({
      id: 1,
      category: 'interface',
      difficulty: 'easy',
      target: 'R1',
      repair_check: { config: { device: 'R1', section: 'interface lo', lacks: 'description broken-by-mcp' } },
    });
    expect(running()).toContain('description broken-by-mcp');

    const list = await cli(['faults', 'list', '--json']);
    expect(list.code, list.stderr).toBe(0);
    const j = JSON.parse(list.stdout);
    expect(j).toMatchObject({ open: 1, fixed: 0, restored: 0 });
    expect(j.faults).toEqual([
      expect.objectContaining({
        id: 1,
        state: 'open',
        target: 'R1',
        category: 'interface',
        applied: ['interface lo', 'description broken-by-mcp'],
        restore: {
          tool: 'execute_multiple_device_config_commands',
          args: { device_configs: [{ device_name: 'R1', config_commands: ['interface lo', 'no description'] }] },
        },
        repair_check: { config: { device: 'R1', section: 'interface lo', lacks: 'description broken-by-mcp' } },
      }),
    ]);
    sessionId = j.faults[0].session_id;

    const check = await cli(['faults', 'check', '--json']);
    expect(check.code, check.stderr).toBe(7);
    expect(JSON.parse(check.stdout).faults[0]).toMatchObject({
      id: 1,
      state: 'open',
      check: { kind: 'config', status: 'fail', evidence: 'description broken-by-mcp' },
    });

    // the server's one session: in its mode, with its project, the change checkpointed under it
    const store = await SessionStore.open(dataDir);
    try {
      const row = store.db.prepare('SELECT copilot_mode, project_name FROM sessions WHERE id = ?').get(sessionId);
      expect(row).toEqual({ copilot_mode: 'troubleshooting_injection', project_name: 'mcp-lab' });
      const cps = store.db.prepare('SELECT device, request_no FROM device_checkpoints WHERE session_id = ?').all(sessionId);
      expect(cps).toEqual([{ device: 'R1', request_no: 1 }]);
    } finally {
      store.close();
    }

    // a second fault of the category on R1 is refused while the first is open: the client hears which and why
    const again = await client.callTool({ name: 'execute_multiple_device_config_commands', arguments: descriptionFault('twice') });
    expect(again.isError).toBe(true);
    expect(text(again)).toMatch(
      /fault refused, nothing was applied: fault #1 \(interface, category interface, on R1, injected [^)]+\) is still open \(its repair check: description broken-by-mcp\)/,
    );
    expect(structured(again).open_fault).toMatchObject({ id: 1, category: 'interface', target: 'R1' });
    expect(running()).not.toContain('description twice');
  });

  it('the refusal holds across MCP server processes (the ledger, not the process, knows the open fault)', async () => {
    const client = await connect(['--approve', 'config']);
    const r = await client.callTool({ name: 'execute_multiple_device_config_commands', arguments: descriptionFault('other-server') });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('fault #1 (interface, category interface, on R1');
    expect(running()).not.toContain('other-server');

    // once it is fixed by hand, `faults check` records it and the category is free again
    lab.vtysh('R1', 'configure terminal', 'interface lo', 'no description', 'end');
    const check = await cli(['faults', 'check', '--json']);
    expect(check.code, check.stderr).toBe(0);
    expect(JSON.parse(check.stdout)).toMatchObject({ open: 0, fixed: 1 });
    const ok = await client.callTool({ name: 'execute_multiple_device_config_commands', arguments: descriptionFault('second-fault') });
    expect(ok.isError, text(ok)).toBeFalsy();
    expect(structured(ok).fault).toMatchObject({ id: 2, category: 'interface' });
    const list = JSON.parse((await cli(['faults', 'list', '--json'])).stdout);
    expect(list.faults.map((f: { id: number; state: string }) => [f.id, f.state])).toEqual([
      [1, 'fixed'],
      [2, 'open'],
    ]);
    // a second server process keeps its own session
    expect(list.faults[1].session_id).not.toBe(sessionId);
  });
});

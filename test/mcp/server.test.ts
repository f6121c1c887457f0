/**
 * `gns3-copilot mcp` through the SDK's own client: the built binary over stdio,
 * a fake GNS3 controller, and a real FRR router's console behind it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { servedTools } from './served-tools.js';
import { startLab, type Lab } from '../lab/lab.js';
import { mcpEnv, serverArgs, startMcpLab, stdioClient, structured, text, type McpLab } from './helpers.js';
import { runCli } from '../helpers/cli-run.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SessionStore } from '../../src/sessions/store.js';
import { CheckpointStore } from '../../src/checkpoints/store.js';

let lab: Lab;
let env: McpLab;
const clients: Client[] = [];
const resourceText = (r: { contents: ({ text: string } | { blob: string })[] }) =>
  r.contents.map((c) => ('text' in c ? c.text : '')).join('\n');

beforeAll(async () => {
  lab = await startLab({ routers: ['R1'], links: [] });
  env = await startMcpLab(lab);
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await env?.close();
  await lab?.stop();
});

async function connect(mode: string, extra: string[] = [], capabilities: Record<string, unknown> = {}) {
  const c = await stdioClient(serverArgs(env.fake, mode, extra), mcpEnv(), capabilities);
  clients.push(c.client);
  return c;
}

const showRoute = { device_configs: [{ device_name: 'R1', commands: ['show ip route'] }] };
const configCall = { device_configs: [{ device_name: 'R1', config_commands: ['interface lo', ' description forged-by-mcp'] }] };

describe('gns3-copilot mcp over stdio', () => {
  it('lists exactly the tools of the copilot mode, with JSON Schema inputs and risk annotations', async () => {
    for (const mode of ['teaching_assistant', 'lab_automation_assistant', 'troubleshooting_injection'] as const) {
      const { client } = await connect(mode);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(servedTools(mode));
      const show = tools.find((t) => t.name === 'execute_multiple_device_commands')!;
      expect(show.inputSchema).toMatchObject({ type: 'object', properties: { device_configs: { type: 'array' } } });
      expect(show.annotations?.readOnlyHint).toBe(true);
      await client.close();
    }
  });

  it('classroom locks apply: a mode locked by the system config cannot be changed, and it decides the tools', async () => {
    const e = mcpEnv();
    const system = join(e.HOME!, 'system.json');
    writeFileSync(system, JSON.stringify({ mode: 'teaching', locked: ['mode'] }));
    e.GNS3_COPILOT_SYSTEM_CONFIG = system;
    const r = await runCli(serverArgs(env.fake, 'lab').slice(1), { env: e });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('"mode" is locked');
    const c = await stdioClient(serverArgs(env.fake, 'lab').slice(0, -2), e);
    clients.push(c.client);
    expect((await c.client.listTools()).tools.map((t) => t.name)).toEqual(servedTools('teaching_assistant'));
  });

  it('runs a read tool on the real router and returns structured content plus text', async () => {
    const { client } = await connect('teaching');
    const r = await client.callTool({ name: 'execute_multiple_device_commands', arguments: showRoute });
    expect(r.isError).toBeFalsy();
    const s = structured(r);
    expect(s.status).toBe('success');
    expect(s.devices[0]).toMatchObject({ device_name: 'R1', status: 'success', platform: 'frr' });
    expect(s.devices[0].results[0].output).toContain('10.255.255.1/32');
    expect(JSON.parse(text(r))).toEqual(s);
  });

  it('maps a batch to isError from its status: some devices failed is a partial result, all failed is an error', async () => {
    const { client } = await connect('teaching');
    const some = await client.callTool({
      name: 'execute_multiple_device_commands',
      arguments: { device_configs: ['R1', 'NOPE'].map((device_name) => ({ device_name, commands: ['show ip route'] })) },
    });
    expect(some.isError).toBeFalsy();
    expect(structured(some)).toMatchObject({
      status: 'partial',
      devices: [
        { device_name: 'R1', status: 'success' },
        { device_name: 'NOPE', status: 'error' },
      ],
    });
    const all = await client.callTool({
      name: 'execute_multiple_device_commands',
      arguments: { device_configs: [{ device_name: 'NOPE', commands: ['show ip route'] }] },
    });
    expect(all.isError).toBe(true);
    expect(structured(all)).toMatchObject({ status: 'error', devices: [{ device_name: 'NOPE', status: 'error' }] });
  });

  it('refuses a forged config call in teaching mode, and nothing reaches the router', async () => {
    const { client } = await connect('teaching', ['--approve', 'all']);
    const r = await client.callTool({ name: 'execute_multiple_device_config_commands', arguments: configCall });
    expect(r.isError).toBe(true);
    expect(structured(r)).toMatchObject({ status: 'blocked' });
    expect(text(r)).toContain('not available in teaching_assistant mode');
    expect(lab.vtysh('R1', 'show running-config')).not.toContain('forged-by-mcp');
  });

  it('follows --approve: never refuses, ask without elicitation refuses clearly, ask with elicitation asks', async () => {
    const never = await connect('lab', ['--approve', 'never']);
    const r1 = await never.client.callTool({ name: 'execute_multiple_device_config_commands', arguments: configCall });
    expect(r1.isError).toBe(true);
    expect(text(r1)).toContain('restart `gns3-copilot mcp` with --approve config');
    // worded for an MCP user: a server, not a one-shot run, and no CLI advice
    expect(text(r1)).not.toMatch(/one-shot|rerun/);

    const askBlind = await connect('lab', ['--approve', 'ask']);
    const r2 = await askBlind.client.callTool({ name: 'execute_multiple_device_config_commands', arguments: configCall });
    expect(r2.isError).toBe(true);
    expect(text(r2)).toContain('does not support elicitation');
    // --approve config is enough for a config tool: not only --approve all
    expect(structured(r2).error).toMatch(/restart `gns3-copilot mcp` with --approve config$/);
    expect(lab.vtysh('R1', 'show running-config')).not.toContain('forged-by-mcp');

    const ask = await connect('lab', ['--approve', 'ask'], { elicitation: { form: {} } });
    const asked: string[] = [];
    ask.client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(String(req.params.message));
      return { action: 'accept', content: { approve: true } };
    });
    const r3 = await ask.client.callTool({
      name: 'execute_multiple_device_config_commands',
      arguments: { device_configs: [{ device_name: 'R1', config_commands: ['interface lo', ' description approved-over-mcp'] }] },
    });
    expect(r3.isError).toBeFalsy();
    expect(asked[0]).toContain('execute_multiple_device_config_commands');
    expect(lab.vtysh('R1', 'show running-config')).toContain('approved-over-mcp');
  });

  it('serves apply_config_template in lab mode: the elicitation shows the rendered set; a forged call in teaching mode is refused', async () => {
    const teaching = await connect('teaching', ['--approve', 'all']);
    const forged = await teaching.client.callTool({
      name: 'apply_config_template',
      arguments: { template: 'interface lo\n description forged-template', devices: ['R*'] },
    });
    expect(forged.isError).toBe(true);
    expect(text(forged)).toContain('not available in teaching_assistant mode');

    const lab1 = await connect('lab', ['--approve', 'ask'], { elicitation: { form: {} } });
    const asked: string[] = [];
    lab1.client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(String(req.params.message));
      return { action: 'accept', content: { approve: true } };
    });
    const r = await lab1.client.callTool({
      name: 'apply_config_template',
      arguments: { template: 'interface lo\n description {{ word }}-{{ device.index }}', devices: ['R*'], vars: { word: 'templated' } },
    });
    expect(r.isError).toBeFalsy();
    expect(structured(r)).toMatchObject({
      status: 'success',
      expansion: { 'R*': ['R1'] },
      devices: [{ device_name: 'R1', status: 'success' }],
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]!.split('\n').slice(0, 4)).toEqual([
      'gns3-copilot wants to run apply_config_template, which changes the lab:',
      'R1:',
      '  interface lo',
      '   description templated-1',
    ]);
    const running = lab.vtysh('R1', 'show running-config');
    expect(running).toContain('description templated-1');
    expect(running).not.toContain('forged-template');
  }, 90_000);

  it('asks with per-device commands and a preview of the diff; a declined call changes and stores nothing, an approved one keeps the reading', async () => {
    const e = mcpEnv();
    const dataDir = join(e.HOME!, 'data');
    e.GNS3_COPILOT_DATA_DIR = dataDir;
    const c = await stdioClient(serverArgs(env.fake, 'lab', ['--approve', 'ask']), e, { elicitation: { form: {} } });
    clients.push(c.client);
    const asked: string[] = [];
    let answer: 'decline' | 'accept' = 'decline';
    c.client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(String(req.params.message));
      return answer === 'accept' ? { action: 'accept', content: { approve: true } } : { action: 'decline' };
    });
    const change = (text: string) => ({
      device_configs: ['R1', 'NOPE'].map((device_name) => ({
        device_name,
        config_commands: ['interface lo', ` description ${text}`, 'exit'],
      })),
    });
    lab.vtysh('R1', 'configure terminal', 'interface lo', 'description before-preview', 'end');
    const before = lab.vtysh('R1', 'show running-config');

    const declined = await c.client.callTool({ name: 'execute_multiple_device_config_commands', arguments: change('declined-preview') });
    expect(declined.isError).toBe(true);
    expect(structured(declined)).toMatchObject({ status: 'blocked' });
    expect(asked).toHaveLength(1);
    const lines = asked[0]!.split('\n');
    expect(lines[0]).toBe('gns3-copilot wants to run execute_multiple_device_config_commands, which changes the lab:');
    // per device its commands, R1's preview diffed against what the router runs now, and why NOPE has none
    expect(lines.slice(1, 5)).toEqual(['R1:', '  interface lo', '   description declined-preview', '  exit']);
    expect(lines).toContain('  + description declined-preview');
    expect(lines).toContain('  - description before-preview');
    expect(lines).toContain('NOPE:');
    expect(lines.find((l) => l.startsWith('  no preview for NOPE: '))).toMatch(/NOPE/);
    expect(lines.at(-1)).toBe('Allow it?');
    expect(lab.vtysh('R1', 'show running-config')).toBe(before);

    answer = 'accept';
    const approved = await c.client.callTool({
      name: 'execute_multiple_device_config_commands',
      arguments: { device_configs: [{ device_name: 'R1', config_commands: ['interface lo', ' description approved-preview', 'exit'] }] },
    });
    expect(approved.isError).toBeFalsy();
    expect(asked[1]).toContain('  + description approved-preview');
    expect(lab.vtysh('R1', 'show running-config')).toContain('description approved-preview');
    await c.client.close();

    const store = await SessionStore.open(dataDir);
    try {
      // the declined call stored nothing; the approved one's checkpoint is the configuration its preview was made from
      const sessions = store.db.prepare('SELECT DISTINCT session_id FROM device_checkpoints').all() as { session_id: string }[];
      expect(sessions).toHaveLength(1);
      const saved = new CheckpointStore(store.db).deviceHistory(sessions[0]!.session_id);
      expect(saved.map((r) => r.device)).toEqual(['R1']);
      expect(saved[0]!.config).toContain('description before-preview');
      expect(saved[0]!.config).not.toMatch(/(declined|approved)-preview/);
    } finally {
      store.close();
    }
  });

  it('checkpoints a change before it runs, and tells the client which device has none; the change is a request rewind undoes', async () => {
    const e = mcpEnv();
    const dataDir = join(e.HOME!, 'data');
    e.GNS3_COPILOT_DATA_DIR = dataDir;
    const c = await stdioClient(serverArgs(env.fake, 'lab', ['--approve', 'config']), e);
    clients.push(c.client);
    const r = await c.client.callTool({
      name: 'execute_multiple_device_config_commands',
      arguments: {
        device_configs: ['R1', 'NOPE'].map((device_name) => ({
          device_name,
          config_commands: ['interface lo', ' description cp-over-mcp'],
        })),
      },
    });
    expect(structured(r).no_checkpoint).toEqual([expect.stringMatching(/^no checkpoint for NOPE: .*NOPE/)]);
    expect(lab.vtysh('R1', 'show running-config')).toContain('cp-over-mcp');
    await c.client.close();
    const store = await SessionStore.open(dataDir);
    try {
      const rows = store.db.prepare('SELECT device, hash IS NOT NULL AS kept FROM device_checkpoints ORDER BY device').all();
      expect(rows).toEqual([
        { device: 'NOPE', kept: 0 },
        { device: 'R1', kept: 1 },
      ]);
    } finally {
      store.close();
    }
    // the client's call is request 1 of the server's session: shown, and what `rewind` undoes by default
    const cli = (...args: string[]) => runCli(['-s', env.fake.url, '--project', 'mcp-lab', ...args], { env: e });
    const listed = (JSON.parse((await cli('sessions', 'list', '--json')).stdout) as { sessions: { id: string; title: string }[] }).sessions;
    expect(listed).toEqual([expect.objectContaining({ title: 'MCP server (lab)' })]);
    const id = listed[0]!.id;
    const shown = await cli('sessions', 'show', id);
    expect(shown.stdout).toContain('MCP client: execute_multiple_device_config_commands (R1, NOPE)');
    const rw = await cli('rewind', id, '--device', 'R1', '--yes', '--json');
    expect(rw.code, rw.stderr).toBe(0);
    expect(JSON.parse(rw.stdout).devices).toEqual([expect.objectContaining({ name: 'R1', status: 'restored' })]);
    expect(lab.vtysh('R1', 'show running-config')).not.toContain('cp-over-mcp');
    // the rewind is request 2 (its own checkpoint kept), after the client's call
    const again = await SessionStore.open(dataDir);
    try {
      expect(new CheckpointStore(again.db).requests(id).map((r) => [r.no, r.kind])).toEqual([
        [1, 'prompt'],
        [2, 'rewind'],
      ]);
    } finally {
      again.close();
    }
  });

  it('sends progress while a device run is long, and cancellation aborts the hung console command', async () => {
    const { client } = await connect('teaching');
    const progress: { progress: number; total?: number; message?: string }[] = [];
    const ac = new AbortController();
    const call = client.callTool(
      {
        name: 'execute_multiple_device_commands',
        arguments: {
          device_configs: [
            { device_name: 'HUNG', commands: ['show hang'] },
            { device_name: 'R1', commands: ['show ip route'] },
          ],
        },
      },
      undefined,
      { signal: ac.signal, onprogress: (p) => void progress.push(p) },
    );
    await expect.poll(() => env.hung.hungLines, { timeout: 10_000 }).toBe(1);
    // R1 finishes while HUNG hangs: a device notification with the total, then heartbeats
    await expect
      .poll(() => progress.some((p) => p.message === 'R1: success (1/2 devices)' && p.total === 2), { timeout: 10_000 })
      .toBe(true);
    await expect.poll(() => progress.filter((p) => p.message?.includes('running')).length, { timeout: 5_000 }).toBeGreaterThanOrEqual(1);
    expect(progress[0]!.message).toBe('execute_multiple_device_commands started');
    const values = progress.map((p) => p.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(new Set(values).size).toBe(values.length);
    expect(Math.max(...values)).toBeLessThan(2);
    const t0 = Date.now();
    ac.abort('test cancels');
    await expect(call).rejects.toThrow();
    // The server aborted the device run: the engine interrupts the console (Ctrl-C) at once,
    // long before the 20 s command timeout.
    await expect.poll(() => env.hung.ctrlC, { timeout: 5_000 }).toBe(true);
    expect(Date.now() - t0).toBeLessThan(5_000);
    // and the server keeps serving
    const r = await client.callTool({ name: 'execute_multiple_device_commands', arguments: showRoute });
    expect(structured(r).status).toBe('success');
  });

  it('serves the topology and skills as resources and the three mode prompts', async () => {
    const { client } = await connect('teaching');
    const { resources } = await client.listResources();
    const topoUri = `gns3://project/${env.projectId}/topology`;
    expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining([topoUri, 'skill://device/frr']));
    const topo = await client.readResource({ uri: topoUri });
    expect(resourceText(topo)).toContain('R1');
    const frr = await client.readResource({ uri: 'skill://device/frr' });
    expect(resourceText(frr)).toContain('platform: frr');
    await expect(client.readResource({ uri: 'skill://device/nope' })).rejects.toThrow(/no device skill "nope"/);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain('gns3://project/{project_id}/topology');

    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['teaching_assistant', 'lab_automation_assistant', 'troubleshooting_injection']);
    const p = await client.getPrompt({ name: 'troubleshooting_injection' });
    const body = (p.messages[0]!.content as { text: string }).text;
    expect(body).toContain('HUNG');
    expect(body).toBe(body.replace('{{topology_info}}', ''));
  });
});

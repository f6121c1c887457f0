/**
 * The user's MCP servers inside the agent: a real SDK server (test/fakes/mcp)
 * over stdio, the real graph and SQLite, the fake LLM over HTTP.
 */
import { describe, expect, it, vi } from 'vitest';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FakeLlm } from '../fakes/llm/server.js';
import { collect, ofType, useFakeLlm, testSettings, testTools, type ToolLog } from '../agent/helpers.js';
import { loadSettings } from '../../src/config/load.js';
import { nullLogger } from '../../src/log.js';
import type { Approver } from '../../src/core/api.js';
import type { Settings } from '../../src/config/schema.js';
import type { ToolDef } from '../../src/tools/types.js';
import { openAgentSession } from '../../src/commands/agent-session.js';
import type { CreateAgentSessionOptions } from '../../src/agent/session.js';
import { ROOT, isolatedEnv, runCli } from '../helpers/cli-run.js';
import { llmFlags } from '../e2e/oneshot-cli.js';
import { parseStreamJson } from '../e2e/oneshot-schema.js';

const { tmp, startLlm } = useFakeLlm('gc-mcp-client-');
let llm: FakeLlm | undefined;

let n = 0;
function netbox(extra: Record<string, unknown> = {}, env: Record<string, string> = {}) {
  const callLog = join(tmp.dir, `calls-${++n}.log`);
  return {
    callLog,
    calls: () => (existsSync(callLog) ? readFileSync(callLog, 'utf8').trim().split('\n') : []),
    cfg: {
      command: process.execPath,
      args: ['--import', 'tsx', 'test/fakes/mcp/server.ts'],
      cwd: ROOT,
      env: { FAKE_MCP_CALL_LOG: callLog, ...env },
      ...extra,
    },
  };
}

/** sessions open through the composition root, which hands the MCP servers to the core */
const session = (settings: Settings, tools: ToolDef[], extra: Partial<CreateAgentSessionOptions> = {}) =>
  openAgentSession({ settings, tools, ...extra });

const toolNames = (l: FakeLlm, i: number) =>
  (l.requests.filter((r) => r.purpose === null)[i]?.body.tools ?? []).map((t) => t.function.name);

describe('mcp_servers in the agent', () => {
  it('the model calls a server tool (server__tool, its JSON Schema) and gets its structured result', async () => {
    const nb = netbox();
    llm = await startLlm([{ tool_calls: [{ id: 'q1', name: 'netbox__query', args: { q: 'R1' } }] }, { text: 'R1-core is a router.' }]);
    const log: ToolLog = { calls: [] };
    const s = await session(testSettings(llm.url, tmp.dir, { mcp_servers: { netbox: nb.cfg } }), testTools(log));
    const ev = await collect(s.send('what is R1?'));
    const req = llm.requests.find((r) => r.purpose === null)!;
    const tool = req.body.tools!.find((t) => t.function.name === 'netbox__query')!;
    expect(tool.function.description).toContain('[MCP server netbox]');
    expect(tool.function.parameters).toMatchObject({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] });
    expect(toolNames(llm, 0)).toEqual(
      expect.arrayContaining(['execute_multiple_device_commands', 'netbox__query', 'netbox__set_vlan', 'netbox__crash']),
    );
    expect(ofType(ev, 'tool_end')[0]).toMatchObject({
      name: 'netbox__query',
      status: 'success',
      output: JSON.stringify({ rows: [{ name: 'R1-core', site: 'lab', role: 'router' }] }),
    });
    expect(nb.calls()).toEqual(['query R1']);
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('done');
    await s.close();
  });

  it('obeys --tool-limit server__tool=n and treats unannotated tools as config-changing unless trusted', async () => {
    const nb = netbox();
    llm = await startLlm([
      {
        tool_calls: [
          { id: 'a', name: 'netbox__query', args: { q: 'R1' } },
          { id: 'b', name: 'netbox__query', args: { q: 'R2' } },
          { id: 'c', name: 'netbox__set_vlan', args: { device: 'R1', vlan: 10 } },
        ],
      },
      { text: 'done' },
    ]);
    const s = await session(testSettings(llm.url, tmp.dir, { mcp_servers: { netbox: nb.cfg }, tool_limits: { netbox__query: 1 } }), []);
    const ev = await collect(s.send('look up R1 and R2, set vlan 10'));
    const ends = Object.fromEntries(ofType(ev, 'tool_end').map((e) => [e.id, e]));
    expect(ends.a!.status).toBe('success');
    expect(ends.b).toMatchObject({ status: 'limit', code: 'limit' });
    expect(ends.b!.output).toContain('--tool-limit netbox__query=1');
    expect(ends.c).toMatchObject({ status: 'blocked', code: 'approval_required' });
    // named for what it is: a tool of a server the user did not trust, not a device change
    expect(ends.c!.output).toContain('netbox__set_vlan is an untrusted MCP tool');
    expect(ends.c!.output).not.toContain('changes device configuration');
    expect(nb.calls()).toEqual(['query R1']);
    await s.close();

    const trusted = netbox({ trust: true, include_tools: ['set_vlan'] });
    llm = await startLlm([{ tool_calls: [{ id: 'v', name: 'netbox__set_vlan', args: { device: 'R1', vlan: 20 } }] }, { text: 'ok' }]);
    const s2 = await session(testSettings(llm.url, tmp.dir, { mcp_servers: { netbox: trusted.cfg } }), []);
    const ev2 = await collect(s2.send('set vlan 20'));
    expect(toolNames(llm, 0).filter((t) => t.startsWith('netbox__'))).toEqual(['netbox__set_vlan']);
    expect(ofType(ev2, 'tool_end')[0]).toMatchObject({ status: 'success', output: 'vlan 20 set on R1' });
    expect(trusted.calls()).toEqual(['set_vlan R1 20']);
    await s2.close();
  });

  it('a server that dies mid-session: clear notice, its tools removed, the session goes on', async () => {
    const nb = netbox();
    llm = await startLlm([
      { tool_calls: [{ id: 'x', name: 'netbox__crash', args: {} }] },
      { text: 'The inventory server crashed.' },
      {
        tool_calls: [
          {
            id: 'y',
            name: 'execute_multiple_device_commands',
            args: { device_configs: [{ device_name: 'R1', commands: ['show ip route'] }] },
          },
        ],
      },
      { text: 'R1 routes are fine.' },
    ]);
    const log: ToolLog = { calls: [] };
    const s = await session(testSettings(llm.url, tmp.dir, { mcp_servers: { netbox: { ...nb.cfg, trust: true } } }), testTools(log));
    const ev = await collect(s.send('crash it'));
    const end = ofType(ev, 'tool_end')[0]!;
    expect(end).toMatchObject({ name: 'netbox__crash', status: 'error', code: 'not_available' });
    expect(end.output).toContain('MCP server netbox stopped during the call');
    const notices = ofType(ev, 'notice').map((e) => e.message);
    expect(notices.join('\n')).toMatch(
      /MCP server netbox stopped \(connection closed.*\); removed its tools \(netbox__query, netbox__set_vlan, netbox__crash\), the session goes on/,
    );
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('done');

    const ev2 = await collect(s.send('now check R1'));
    expect(toolNames(llm, 2).some((t) => t.startsWith('netbox__'))).toBe(false);
    expect(ofType(ev2, 'tool_end')[0]).toMatchObject({ name: 'execute_multiple_device_commands', status: 'success' });
    expect(ofType(ev2, 'done')[0]!.stopped_reason).toBe('done');
    await s.close();
  });

  it('a server that dies while its call waits for approval: that call is an error result, every call is answered', async () => {
    const pidFile = join(tmp.dir, `netbox-${++n}.pid`);
    const nb = netbox({}, { FAKE_MCP_PID_FILE: pidFile });
    llm = await startLlm([
      {
        tool_calls: [
          { id: 'v', name: 'netbox__set_vlan', args: { device: 'R1', vlan: 30 } },
          {
            id: 'r',
            name: 'execute_multiple_device_commands',
            args: { device_configs: [{ device_name: 'R1', commands: ['show ip route'] }] },
          },
        ],
      },
      { text: 'The inventory server went away.' },
    ]);
    const warnings: string[] = [];
    const log = { ...nullLogger, warn: (msg: string) => void warnings.push(msg) };
    const approver: Approver = async () => {
      // the user takes a while to answer; meanwhile the server dies and its tools are removed
      process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
      await vi.waitFor(() => expect(warnings.join('\n')).toContain('MCP server netbox stopped'), { timeout: 10_000 });
      return { kind: 'allow_once' };
    };
    const tools: ToolLog = { calls: [] };
    const s = await session(testSettings(llm.url, tmp.dir, { mcp_servers: { netbox: nb.cfg } }), testTools(tools), { approver, log });
    const ev = await collect(s.send('set vlan 30 on R1 and check its routes'));
    const ends = Object.fromEntries(ofType(ev, 'tool_end').map((e) => [e.id, e]));
    expect(ends.v).toMatchObject({ status: 'error', code: 'not_available' });
    expect(ends.r).toMatchObject({ status: 'success' });
    expect(ofType(ev, 'error')).toEqual([]);
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('done');
    // the model got an answer for both calls
    const toolMsgs = llm.requests[1]!.body.messages.filter((m) => m.role === 'tool');
    expect(toolMsgs.map((m) => m.tool_call_id).sort()).toEqual(['r', 'v']);
    expect(nb.calls()).toEqual([]);
    await s.close();
  });

  it('a server that fails to start: a notice in the first request, no tools, the session works', async () => {
    const nb = netbox({}, { FAKE_MCP_FAIL_START: '1' });
    llm = await startLlm([{ text: 'hello' }]);
    const s = await session(testSettings(llm.url, tmp.dir, { mcp_servers: { netbox: nb.cfg } }), testTools({ calls: [] }));
    const ev = await collect(s.send('hi'));
    const [waiting, notice] = ofType(ev, 'notice').map((e) => e.message);
    expect(waiting).toBe('waiting for MCP server netbox to connect (each up to its timeout)…');
    expect(notice).toContain('MCP server netbox did not start');
    expect(notice).toContain('cannot reach the inventory database');
    expect(toolNames(llm, 0).some((t) => t.startsWith('netbox__'))).toBe(false);
    expect(ofType(ev, 'done')[0]!.stopped_reason).toBe('done');
    await s.close();
  });

  it('a request that starts while a server is still connecting says which one it waits for, then has its tools', async () => {
    const fast = netbox();
    const slow = netbox({}, { FAKE_MCP_START_DELAY_MS: '1500' });
    llm = await startLlm([{ text: 'first' }, { text: 'second' }]);
    const settings = testSettings(llm.url, tmp.dir, { mcp_servers: { netbox: fast.cfg, slowbox: slow.cfg } });
    const s = await session(settings, testTools({ calls: [] }));
    const first = await collect(s.send('hi'));
    const waiting = ofType(first, 'notice').map((e) => e.message);
    expect(waiting.some((m) => /waiting for MCP servers? .*slowbox.* to connect/.test(m))).toBe(true);
    expect(toolNames(llm, 0)).toEqual(expect.arrayContaining(['netbox__query', 'slowbox__query']));
    const second = await collect(s.send('again'));
    expect(ofType(second, 'notice').some((e) => e.message.startsWith('waiting for MCP'))).toBe(false);
    await s.close();
  });

  it('expands $VAR and ${VAR} in env, args and headers from the environment', async () => {
    const nb = netbox();
    process.env.GC_MCP_TEST_LOG = nb.callLog;
    llm = await startLlm([{ tool_calls: [{ id: 'q', name: 'netbox__query', args: { q: 'R9' } }] }, { text: 'ok' }]);
    const s = await session(
      testSettings(llm.url, tmp.dir, { mcp_servers: { netbox: { ...nb.cfg, env: { FAKE_MCP_CALL_LOG: '${GC_MCP_TEST_LOG}' } } } }),
      [],
    );
    await collect(s.send('R9?'));
    expect(nb.calls()).toEqual(['query R9']);
    await s.close();
    delete process.env.GC_MCP_TEST_LOG;
  });

  it('the system config can lock mcp_servers for a classroom', async () => {
    const dir = join(tmp.dir, 'lock');
    mkdirSync(dir, { recursive: true });
    const system = join(dir, 'system.json');
    const user = join(dir, 'user.json');
    writeFileSync(system, JSON.stringify({ mcp_servers: {}, locked: ['mcp_servers'] }));
    writeFileSync(user, JSON.stringify({ mcp_servers: { netbox: netbox().cfg } }));
    await expect(loadSettings({ env: {}, cwd: dir, systemConfigFile: system, userConfigFile: user })).rejects.toThrow(
      /"mcp_servers" is locked/,
    );
    writeFileSync(user, JSON.stringify({ mcp_servers: { netbox: { args: [] } } }));
    await expect(loadSettings({ env: {}, cwd: dir, userConfigFile: user, systemConfigFile: join(dir, 'none.json') })).rejects.toThrow(
      /command, url or httpUrl/,
    );
  });

  it('--tool-limit accepts server__tool names on the command line', async () => {
    const env = isolatedEnv({ GNS3_COPILOT_KEYCHAIN: 'off' });
    const ok = await runCli(['--tool-limit', 'netbox__query=3', 'mcp', '--http', 'nonsense'], { env });
    expect(ok.stderr).toContain('--http: expected HOST:PORT'); // got past --tool-limit
    const bad = await runCli(['--tool-limit', 'netbox=3', 'mcp', '--http', 'nonsense'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--tool-limit: unknown tool "netbox"');
  });

  it('one-shot CLI: the server tool runs, a broken server is a notice on stderr and in --stream-json', async () => {
    const env = isolatedEnv({ GNS3_COPILOT_KEYCHAIN: 'off', NO_COLOR: '1' });
    const cfgDir = join(env.XDG_CONFIG_HOME!, 'gns3-copilot');
    mkdirSync(cfgDir, { recursive: true });
    const ok = netbox();
    writeFileSync(
      join(cfgDir, 'config.json'),
      JSON.stringify({ mcp_servers: { netbox: ok.cfg, broken: netbox({}, { FAKE_MCP_FAIL_START: '1' }).cfg } }),
    );
    llm = await startLlm([
      { tool_calls: [{ id: 'q', name: 'netbox__query', args: { q: 'R1' } }] },
      { text: 'R1-core.' },
      { tool_calls: [{ id: 'q2', name: 'netbox__query', args: { q: 'R2' } }] },
      { text: 'R2-core.' },
    ]);
    const text = await runCli(['-p', 'what is R1?', ...llmFlags(llm.url)], { env, timeoutMs: 30_000 });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('R1-core.');
    expect(text.stderr).toMatch(/warning: MCP server broken did not start \(.*cannot reach the inventory database/);
    const json = await runCli(['-p', 'and R2?', '--stream-json', ...llmFlags(llm.url)], { env, timeoutMs: 30_000 });
    expect(json.code).toBe(0);
    const events = parseStreamJson(json.stdout);
    const notices = events.filter((e) => e.type === 'notice');
    expect(notices).toContainEqual(expect.objectContaining({ message: expect.stringContaining('MCP server broken did not start') }));
    expect(events.find((e) => e.type === 'tool_end')).toMatchObject({ name: 'netbox__query', status: 'success' });
    expect(ok.calls()).toEqual(['query R1', 'query R2']);
  }, 90_000); // two CLI runs of up to 30 s each

  it('doctor lists each server: connected with its tools, or why not', async () => {
    const env = isolatedEnv({ GNS3_COPILOT_KEYCHAIN: 'off' });
    const cfgDir = join(env.XDG_CONFIG_HOME!, 'gns3-copilot');
    mkdirSync(cfgDir, { recursive: true });
    const ok = netbox();
    const broken = netbox({}, { FAKE_MCP_FAIL_START: '1' });
    writeFileSync(join(cfgDir, 'config.json'), JSON.stringify({ mcp_servers: { netbox: ok.cfg, broken: broken.cfg } }));
    const r = await runCli(['doctor', '-s', 'http://127.0.0.1:9', '--base-url', 'http://127.0.0.1:9/v1', '--provider', 'custom'], {
      env,
      timeoutMs: 30_000,
    });
    expect(r.stdout).toContain('✓ MCP server netbox: connected, 3 tools (netbox__query, netbox__set_vlan, netbox__crash)');
    expect(r.stdout).toMatch(/✗ MCP server broken: .*cannot reach the inventory database/);
  });
});

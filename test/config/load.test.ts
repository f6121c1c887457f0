import { describe, expect, it, beforeEach } from 'vitest';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSettings } from '../../src/config/load.js';
import { UsageError } from '../../src/errors.js';

let root: string;
let sys: string;
let user: string;
let proj: string;
const write = (f: string, v: unknown) => writeFileSync(f, typeof v === 'string' ? v : JSON.stringify(v));
const load = (o: { flags?: Record<string, unknown>; env?: NodeJS.ProcessEnv; cwd?: string } = {}) =>
  loadSettings({ env: {}, cwd: proj, systemConfigFile: sys, userConfigFile: user, ...o });

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gns3c-load-'));
  sys = join(root, 'etc.json');
  user = join(root, 'user.json');
  proj = join(root, 'work', 'lab1', 'deep');
  mkdirSync(proj, { recursive: true });
});

describe('loadSettings precedence', () => {
  it('uses defaults when nothing is configured', async () => {
    const { settings, origins } = await load();
    expect(settings.server).toBe('http://127.0.0.1:3080');
    expect(settings.max_iterations).toBe(20);
    expect(settings.mode).toBe('teaching_assistant');
    expect(origins.server).toBe('default');
  });

  it('flags > env > project > user > system > defaults, with origins per key', async () => {
    write(sys, { server: 'http://sys:3080', model: 'sys-model', max_iterations: 5, provider: 'ollama', on_limit: 'fail' });
    write(user, { server: 'http://user:3080', model: 'user-model', max_iterations: 6, provider: 'deepseek' });
    // project file two levels up from cwd: found by walking parents
    write(join(root, 'work', '.gns3-copilot.json'), { server: 'http://proj:3080', model: 'proj-model', max_iterations: 7 });
    const env = { GNS3_SERVER: 'http://env:3080', GNS3_COPILOT_MODEL: 'env-model' };
    const { settings, origins } = await load({ env, flags: { server: 'http://flag:3080' } });
    expect(settings.server).toBe('http://flag:3080');
    expect(origins.server).toBe('flag --server');
    expect(settings.model).toBe('env-model');
    expect(origins.model).toBe('env GNS3_COPILOT_MODEL');
    expect(settings.max_iterations).toBe(7);
    expect(origins.max_iterations).toBe(`project ${join(root, 'work', '.gns3-copilot.json')}`);
    expect(settings.provider).toBe('deepseek');
    expect(origins.provider).toBe(`user ${user}`);
    expect(settings.on_limit).toBe('fail');
    expect(origins.on_limit).toBe(`system ${sys}`);
    expect(origins.context_strategy).toBe('default');
  });

  it('reads typed values from env strings (booleans, numbers, lists, NO_COLOR)', async () => {
    const { settings, origins } = await load({
      env: {
        GNS3_COPILOT_INSECURE: 'false',
        GNS3_COPILOT_MAX_TOOL_CALLS: '12',
        GNS3_COPILOT_APPROVAL_TOOLS: 'create_gns3_node,start_gns3_node',
        NO_COLOR: '1',
        GNS3_COPILOT_LOG: 'debug',
        GNS3_COPILOT_MODE: 'lab',
      },
    });
    expect(settings.insecure).toBe(false);
    expect(settings.max_tool_calls).toBe(12);
    expect(settings.approval_tools).toEqual(['create_gns3_node', 'start_gns3_node']);
    expect(settings.color).toBe(false);
    expect(origins.color).toBe('env NO_COLOR');
    expect(settings.log_level).toBe('debug');
    expect(settings.mode).toBe('lab_automation_assistant');
  });

  it('warns about unknown and secret-looking keys in files and never uses them', async () => {
    write(user, { api_key: 'sk-should-not-be-here', colour: false });
    const { warnings, settings } = await load();
    expect(warnings.join('\n')).toMatch(/ignored "api_key".*auth login/);
    expect(warnings.join('\n')).toMatch(/unknown key "colour"/);
    expect(JSON.stringify(settings)).not.toContain('sk-should-not-be-here');
  });
});

describe('loadSettings validation', () => {
  const bad: [Record<string, unknown>, RegExp][] = [
    [{ max_iterations: '0' }, /^--max-iterations: must be an integer 1\.\.100 \(got 0\)$/],
    [{ max_iterations: '101' }, /^--max-iterations: must be an integer 1\.\.100 \(got 101\)$/],
    [{ max_iterations: 'abc' }, /^--max-iterations: must be an integer 1\.\.100 \(got abc\)$/],
    [{ max_tool_calls: '51' }, /^--max-tool-calls: must be an integer 1\.\.50/],
    [{ mode: 'chaos' }, /^--mode: must be teaching\|lab\|inject/],
    [{ server: 'not a url' }, /^--server: must be an http:\/\/ or https:\/\/ URL/],
    [{ server: 'ftp://x' }, /^--server: must be an http/],
    [{ on_limit: 'maybe' }, /^--on-limit: must be one of fail\|warn\|continue \(got maybe\)$/],
    [{ temperature: '3' }, /^--temperature: must be a number 0\.\.2 \(got 3\)$/],
    [{ temperature: '' }, /^--temperature: must be a number 0\.\.2/],
    [{ context_strategy: 'yolo' }, /^--context-strategy: must be one of conservative\|balanced\|aggressive/],
  ];
  for (const [flags, re] of bad) {
    it(`rejects ${JSON.stringify(flags)}`, async () => {
      const err = await load({ flags }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UsageError);
      expect((err as UsageError).exitCode).toBe(2);
      expect((err as Error).message).toMatch(re);
    });
  }

  it('names the env var and the file for bad values there', async () => {
    await expect(load({ env: { GNS3_COPILOT_MAX_ITERATIONS: '500' } })).rejects.toThrow(
      /^GNS3_COPILOT_MAX_ITERATIONS: must be an integer 1\.\.100/,
    );
    write(user, { max_iterations: 0 });
    await expect(load()).rejects.toThrow(`max_iterations in ${user}: must be an integer 1..100 (got 0)`);
  });

  it('validates the limit settings of env and files like the rest', async () => {
    await expect(load({ env: { GNS3_COPILOT_MAX_PARALLEL_TOOLS: '0' } })).rejects.toThrow(
      /^GNS3_COPILOT_MAX_PARALLEL_TOOLS: must be an integer 1\.\.20 \(got 0\)$/,
    );
    await expect(load({ env: { GNS3_COPILOT_RETRY_ON_TOOL_ERROR: 'maybe' } })).rejects.toThrow(
      /^GNS3_COPILOT_RETRY_ON_TOOL_ERROR: must be true or false/,
    );
    const ok = await load({ env: { GNS3_COPILOT_RETRY_ON_TOOL_ERROR: 'off', GNS3_COPILOT_MAX_DIAGNOSTIC_CALLS: '7' } });
    expect(ok.settings).toMatchObject({
      retry_on_tool_error: false,
      max_diagnostic_calls: 7,
      max_parallel_tools: 5,
      max_retries_per_tool: 1,
    });
    write(user, { max_device_config_calls: 0 });
    await expect(load()).rejects.toThrow(`max_device_config_calls in ${user}: must be an integer 1..1000 (got 0)`);
    // a boolean written as a string in a file is read as the word, not as "non-empty = true"
    write(user, { retry_on_tool_error: 'false' });
    expect((await load()).settings.retry_on_tool_error).toBe(false);
    write(user, { max_retries_per_tool: 6 });
    await expect(load()).rejects.toThrow(`max_retries_per_tool in ${user}: must be an integer 0..5 (got 6)`);
  });

  it('validates agent_budget (the recursive tree budget) in files', async () => {
    write(user, { agent_budget: { max_llm_calls: 40, enabled: false } });
    expect((await load()).settings.agent_budget).toEqual({ max_llm_calls: 40, enabled: false });
    write(user, { agent_budget: { max_llm_calls: 0 } });
    await expect(load()).rejects.toThrow(`agent_budget in ${user}: must be a JSON object with any of enabled`);
    write(user, { agent_budget: { max_agents: 3 } });
    await expect(load()).rejects.toThrow(/^agent_budget in .*: must be a JSON object/);
  });

  it('reports a broken JSON file by path', async () => {
    write(user, '{"server": ');
    await expect(load()).rejects.toThrow(`config file ${user} is not valid JSON`);
  });
});

describe('classroom locks', () => {
  beforeEach(() =>
    write(sys, {
      mode: 'teaching',
      max_tool_calls: 10,
      base_url: 'http://127.0.0.1:11434/v1',
      model: 'llama3',
      locked: ['mode', 'max_tool_calls', 'base_url'],
    }),
  );

  it('applies locked values and reports them as locked', async () => {
    const { settings, origins, locked } = await load();
    expect(settings.mode).toBe('teaching_assistant');
    expect(settings.max_tool_calls).toBe(10);
    expect(origins.mode).toBe(`system ${sys} (locked)`);
    expect(origins.model).toBe(`system ${sys}`);
    expect(locked.sort()).toEqual(['base_url', 'max_tool_calls', 'mode']);
  });

  it('refuses overrides from flags, env and files, naming the lock', async () => {
    await expect(load({ flags: { mode: 'lab' } })).rejects.toThrow(
      `--mode: "mode" is locked to "teaching_assistant" by the system config ${sys} (classroom lock)`,
    );
    await expect(load({ env: { GNS3_COPILOT_MAX_TOOL_CALLS: '40' } })).rejects.toThrow(
      /^GNS3_COPILOT_MAX_TOOL_CALLS: "max_tool_calls" is locked to 10/,
    );
    write(user, { base_url: 'https://api.openai.com/v1' });
    await expect(load()).rejects.toThrow(/^base_url in .*user\.json: "base_url" is locked/);
  });

  it('allows unlocked keys and the same value as the lock (either spelling)', async () => {
    const { settings } = await load({ flags: { mode: 'teaching_assistant', model: 'other' } });
    expect(settings.model).toBe('other');
    await expect(load({ flags: { mode: 'teaching' } })).resolves.toBeDefined();
  });

  it('accepts the object form of locked', async () => {
    write(sys, { locked: { approve: 'all' } });
    const { settings } = await load();
    expect(settings.approve).toBe('all');
    await expect(load({ flags: { approve: 'never' } })).rejects.toThrow(/locked/);
  });
});

describe('agent_mode: a setting with the env alias AGENT_MODE', () => {
  it('unset by default (a new session is flat); flag > AGENT_MODE > GNS3_COPILOT_AGENT_MODE > project > user > system', async () => {
    const none = await load();
    expect(none.settings.agent_mode).toBeUndefined();
    expect(none.origins.agent_mode).toBe('default');
    write(sys, { agent_mode: 'recursive' });
    expect((await load()).settings.agent_mode).toBe('recursive');
    write(user, { agent_mode: 'flat' });
    expect((await load()).origins.agent_mode).toBe(`user ${user}`);
    const env = { AGENT_MODE: 'recursive', GNS3_COPILOT_AGENT_MODE: 'flat' };
    const fromEnv = await load({ env });
    expect(fromEnv.settings.agent_mode).toBe('recursive');
    expect(fromEnv.origins.agent_mode).toBe('env AGENT_MODE');
    const fromFlag = await load({ env, flags: { agent_mode: 'flat' } });
    expect(fromFlag.settings.agent_mode).toBe('flat');
    expect(fromFlag.origins.agent_mode).toBe('flag --agent-mode');
  });

  it('`legacy`, the earlier name of flat, is read as flat from every source', async () => {
    write(user, { agent_mode: 'legacy' });
    expect((await load()).settings.agent_mode).toBe('flat');
    expect((await load({ env: { AGENT_MODE: 'LEGACY' } })).settings.agent_mode).toBe('flat');
    expect((await load({ flags: { agent_mode: 'legacy' } })).settings.agent_mode).toBe('flat');
  });

  it('a bad value is one line naming its source and the allowed values, exit 2', async () => {
    for (const [o, line] of [
      [{ flags: { agent_mode: 'tree' } }, '--agent-mode: must be one of flat|recursive (got tree)'],
      [{ env: { AGENT_MODE: 'tree' } }, 'AGENT_MODE: must be one of flat|recursive (got tree)'],
    ] as const) {
      const err = await load(o).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(UsageError);
      expect((err as UsageError).message).toBe(line);
      expect((err as UsageError).exitCode).toBe(2);
    }
    write(user, { agent_mode: 'deep' });
    await expect(load()).rejects.toThrow(/^agent_mode in .*user\.json: must be one of flat\|recursive \(got deep\)$/);
  });

  it('a classroom lock holds against AGENT_MODE, the flag and the files; the locked value itself (either name) is accepted', async () => {
    write(sys, { agent_mode: 'flat', locked: ['agent_mode'] });
    await expect(load({ env: { AGENT_MODE: 'recursive' } })).rejects.toThrow(
      `AGENT_MODE: "agent_mode" is locked to "flat" by the system config ${sys} (classroom lock)`,
    );
    await expect(load({ flags: { agent_mode: 'recursive' } })).rejects.toThrow(/^--agent-mode: "agent_mode" is locked to "flat"/);
    write(user, { agent_mode: 'recursive' });
    await expect(load()).rejects.toThrow(/^agent_mode in .*user\.json: "agent_mode" is locked/);
    write(user, {});
    const ok = await load({ env: { AGENT_MODE: 'legacy' }, flags: { agent_mode: 'flat' } });
    expect(ok.settings.agent_mode).toBe('flat');
    expect(ok.origins.agent_mode).toBe(`system ${sys} (locked)`);
  });
});

describe('topology_inline_max: nodes up to which the prompt lists the topology', () => {
  it('150 by default; flag > env > project > user > system, each origin named', async () => {
    const none = await load();
    expect(none.settings.topology_inline_max).toBe(150);
    expect(none.origins.topology_inline_max).toBe('default');
    write(sys, { topology_inline_max: 60 });
    expect((await load()).settings.topology_inline_max).toBe(60);
    write(user, { topology_inline_max: 80 });
    expect((await load()).origins.topology_inline_max).toBe(`user ${user}`);
    const env = { GNS3_COPILOT_TOPOLOGY_INLINE_MAX: '200' };
    expect((await load({ env })).settings.topology_inline_max).toBe(200);
    const fromFlag = await load({ env, flags: { topology_inline_max: '0' } });
    expect(fromFlag.settings.topology_inline_max).toBe(0);
    expect(fromFlag.origins.topology_inline_max).toBe('flag --topology-inline-max');
  });

  it('a bad value is one line naming its source and the range', async () => {
    await expect(load({ flags: { topology_inline_max: '-1' } })).rejects.toThrow(
      '--topology-inline-max: must be an integer 0..100000 (got -1)',
    );
    await expect(load({ env: { GNS3_COPILOT_TOPOLOGY_INLINE_MAX: 'many' } })).rejects.toThrow(
      /^GNS3_COPILOT_TOPOLOGY_INLINE_MAX: must be an integer 0\.\.100000 \(got many\)$/,
    );
  });

  it('a classroom lock holds against the flag, the env var and the files', async () => {
    write(sys, { topology_inline_max: 40, locked: ['topology_inline_max'] });
    await expect(load({ flags: { topology_inline_max: '400' } })).rejects.toThrow(
      `--topology-inline-max: "topology_inline_max" is locked to 40 by the system config ${sys} (classroom lock)`,
    );
    await expect(load({ env: { GNS3_COPILOT_TOPOLOGY_INLINE_MAX: '400' } })).rejects.toThrow(/locked to 40/);
    write(user, { topology_inline_max: 400 });
    await expect(load()).rejects.toThrow(/^topology_inline_max in .*user\.json: "topology_inline_max" is locked/);
    write(user, {});
    const ok = await load({ flags: { topology_inline_max: '40' } });
    expect(ok.settings.topology_inline_max).toBe(40);
    expect(ok.origins.topology_inline_max).toBe(`system ${sys} (locked)`);
  });
});

import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, isolatedEnv, ROOT } from '../helpers/cli-run.js';

const userFile = (env: Record<string, string>) => join(env.XDG_CONFIG_HOME!, 'gns3-copilot', 'config.json');
const readUser = (env: Record<string, string>) => JSON.parse(readFileSync(userFile(env), 'utf8')) as Record<string, unknown>;

describe('config get|set|unset|list|path', () => {
  it('sets, gets (with origin), lists and unsets values in the XDG user file', async () => {
    const env = isolatedEnv();
    let r = await runCli(['config', 'set', 'server', 'http://10.0.0.5:3080'], { env });
    expect(r.code, r.stderr).toBe(0);
    r = await runCli(['config', 'set', 'mode', 'lab'], { env });
    expect(r.code).toBe(0);
    r = await runCli(['config', 'set', 'max_tool_calls', '12'], { env });
    expect(readUser(env)).toEqual({ server: 'http://10.0.0.5:3080', mode: 'lab_automation_assistant', max_tool_calls: 12 });

    r = await runCli(['config', 'get', 'server', '--origin'], { env });
    expect(r.stdout).toBe(`http://10.0.0.5:3080\tuser ${userFile(env)}\n`);
    r = await runCli(['config', 'get', 'max_iterations', '--origin'], { env });
    expect(r.stdout).toBe('20\tdefault\n');
    r = await runCli(['config', 'get', 'project'], { env });
    expect(r.code).toBe(1);

    r = await runCli(['config', 'list', '--origin', '--json'], { env: { ...env, GNS3_PROJECT: 'lab1' } });
    const list = JSON.parse(r.stdout) as Record<string, { value: unknown; origin: string }>;
    expect(list.mode).toEqual({ value: 'lab_automation_assistant', origin: `user ${userFile(env)}` });
    expect(list.project).toEqual({ value: 'lab1', origin: 'env GNS3_PROJECT' });
    expect(list.context_strategy).toEqual({ value: 'balanced', origin: 'default' });

    r = await runCli(['config', 'list', '--origin'], { env });
    expect(r.stdout).toMatch(/^mode\s+lab_automation_assistant\s+\[user .*config\.json\]$/m);

    r = await runCli(['config', 'unset', 'mode'], { env });
    expect(r.code).toBe(0);
    expect(readUser(env)).toEqual({ server: 'http://10.0.0.5:3080', max_tool_calls: 12 });

    r = await runCli(['config', 'path'], { env });
    expect(r.stdout).toContain(`user     ${userFile(env)}`);
    expect(r.stdout).toContain(`sessions ${join(env.XDG_DATA_HOME!, 'gns3-copilot', 'sessions.db')}`);
  });

  it('flags apply to config get/list (flag origin)', async () => {
    const env = isolatedEnv();
    const r = await runCli(['--server', 'http://192.0.2.1:3080', 'config', 'get', 'server', '--origin'], { env });
    expect(r.stdout).toBe('http://192.0.2.1:3080\tflag --server\n');
  });

  it('validates values and keys, refuses secrets', async () => {
    const env = isolatedEnv();
    let r = await runCli(['config', 'set', 'max_iterations', '101'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: max_iterations: must be an integer 1..100 (got 101)\n');
    r = await runCli(['config', 'set', 'api_key', 'sk-live-123456'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: "api_key" is a secret: store it with `gns3-copilot auth login`/);
    r = await runCli(['config', 'set', 'gns3_password', 'hunter2'], { env });
    expect(r.code).toBe(2);
    r = await runCli(['config', 'set', 'no_such_key', '1'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: unknown setting "no_such_key"/);
    expect(existsSync(userFile(env))).toBe(false);
  });

  it('refuses to set a key locked by the system config, naming the lock', async () => {
    const env = isolatedEnv();
    const sys = join(env.HOME!, 'classroom.json');
    writeFileSync(sys, JSON.stringify({ mode: 'teaching', max_tool_calls: 10, locked: ['mode', 'max_tool_calls'] }));
    const e = { ...env, GNS3_COPILOT_SYSTEM_CONFIG: sys };
    const r = await runCli(['config', 'set', 'max_tool_calls', '50'], { env: e });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`error: "max_tool_calls" is locked to 10 by the system config ${sys} (classroom lock); it cannot be changed\n`);
    expect(existsSync(userFile(env))).toBe(false);
    const ok = await runCli(['config', 'set', 'model', 'llama3'], { env: e });
    expect(ok.code).toBe(0);
    const got = await runCli(['config', 'get', 'mode', '--origin'], { env: e });
    expect(got.stdout).toBe(`teaching_assistant\tsystem ${sys} (locked)\n`);
  });
});

describe("concurrent writers keep each other's keys", () => {
  it('two `config set` processes started together, many rounds', async () => {
    const env = isolatedEnv();
    const pairs: [string, string][] = [
      ['model', 'm'],
      ['project', 'p'],
      ['provider', 'ollama'],
      ['max_iterations', '7'],
      ['context_strategy', 'aggressive'],
      ['on_limit', 'fail'],
      ['max_time', '60'],
      ['temperature', '0.5'],
      ['log_level', 'debug'],
      ['device_concurrency', '8'],
      ['command_timeout_ms', '3000'],
      ['max_tokens', '500'],
    ];
    // Each round two processes set different keys at the same moment; nothing they wrote may be lost.
    for (let round = 0; round < pairs.length; round += 2) {
      const [a, b] = [pairs[round]!, pairs[round + 1]!];
      const [ra, rb] = await Promise.all([runCli(['config', 'set', a[0], a[1]], { env }), runCli(['config', 'set', b[0], b[1]], { env })]);
      expect(ra.code, ra.stderr).toBe(0);
      expect(rb.code, rb.stderr).toBe(0);
    }
    const file = readUser(env);
    for (const [k] of pairs) expect(file, k).toHaveProperty(k);
    expect(Object.keys(file)).toHaveLength(pairs.length);
  }, 60_000);

  it('two processes doing 150 updates each under contention lose nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), `gns3c-cas-${process.pid}-`));
    const file = join(dir, 'config.json');
    const writer = (prefix: string) =>
      new Promise<{ retries: number }>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/helpers/cli-config-writer.ts'), file, prefix, '150'], {
          cwd: ROOT,
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.on('close', (code) =>
          code === 0 ? resolve(JSON.parse(out) as { retries: number }) : reject(new Error(`writer exited ${code}`)),
        );
      });
    const [a, b] = await Promise.all([writer('a'), writer('b')]);
    const final = JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>;
    expect(Object.keys(final)).toHaveLength(300);
    for (let i = 0; i < 150; i++) {
      expect(final[`a${i}`]).toBe(i);
      expect(final[`b${i}`]).toBe(i);
    }
    // They really did collide (otherwise this test would prove nothing) and merged.
    expect(a.retries + b.retries).toBeGreaterThan(0);
    expect(existsSync(`${file}.lock`)).toBe(false);
  }, 60_000);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, isolatedEnv } from '../helpers/cli-run.js';
import { startSecretService, type SecretService } from '../helpers/secret-service.js';
import { startFakeGns3 } from '../fakes/gns3/server.js';

/** Every file under dir whose bytes contain needle (plaintext leak check). */
function filesContaining(dir: string, needle: string): string[] {
  const hits: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = statSync(p, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) walk(p);
      else if (st.isFile() && readFileSync(p).includes(needle)) hits.push(p);
    }
  };
  walk(dir);
  return hits;
}

describe('auth with a real Secret Service (gnome-keyring on a private D-Bus)', () => {
  let ss: SecretService;
  let env: Record<string, string>;
  beforeAll(async () => {
    ss = await startSecretService();
    env = { ...isolatedEnv(), ...ss.env };
  });
  afterAll(async () => ss?.stop());

  const KEY = 'sk-test-7f3a9c2e51d04b8e';
  const PASSWORD = 'correct horse battery staple';

  it('login (stdin) -> status -> logout round trip, never printing the secret', async () => {
    let r = await runCli(['auth', 'status'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^keychain\s+✓ available/m);
    expect(r.stdout).toMatch(/^LLM API key\s+✗ not set$/m);

    r = await runCli(['auth', 'login'], { env, input: `${KEY}\n` });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('LLM API key stored in the OS keychain');

    r = await runCli(['auth', 'login', '--gns3-user', 'alice'], { env, input: `${PASSWORD}\n` });
    expect(r.code, r.stderr).toBe(0);

    r = await runCli(['auth', 'status'], { env });
    expect(r.stdout).toMatch(/^LLM API key\s+✓ set \(keychain\)$/m);
    expect(r.stdout).toMatch(/^GNS3 user\s+✓ set \(keychain\)$/m);
    expect(r.stdout).toMatch(/^GNS3 password\s+✓ set \(keychain\)$/m);
    const json = await runCli(['auth', 'status', '--json'], { env });
    expect(JSON.parse(json.stdout)).toMatchObject({
      keychain: { available: true },
      secrets: { llm_api_key: { stored: true, source: 'keychain' } },
    });
    for (const out of [r.stdout, r.stderr, json.stdout, json.stderr]) {
      expect(out).not.toContain(KEY);
      expect(out).not.toContain(PASSWORD);
    }

    // The secret is in the keyring (secret-tool reads it back), and in no plaintext file anywhere.
    const { execFileSync } = await import('node:child_process');
    const fromKeyring = execFileSync('secret-tool', ['lookup', 'service', 'gns3-copilot', 'username', 'llm_api_key'], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });
    expect(fromKeyring).toBe(KEY);
    expect(filesContaining(env.HOME!, KEY)).toEqual([]);
    expect(filesContaining(ss.root, KEY)).toEqual([]);

    r = await runCli(['auth', 'logout', '--llm'], { env });
    expect(r.stdout).toContain('deleted from the OS keychain: llm_api_key');
    r = await runCli(['auth', 'status'], { env });
    expect(r.stdout).toMatch(/^LLM API key\s+✗ not set$/m);
    expect(r.stdout).toMatch(/^GNS3 password\s+✓ set \(keychain\)$/m);

    r = await runCli(['auth', 'logout'], { env });
    expect(r.stdout).toContain('gns3_username');
    r = await runCli(['auth', 'logout'], { env });
    expect(r.stdout).toBe('nothing was stored in the OS keychain\n');
  });

  it('refuses secrets on the command line and empty input', async () => {
    let r = await runCli(['auth', 'login', KEY], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: secrets are never taken from arguments/);
    expect(r.stderr).not.toContain(KEY);
    r = await runCli(['auth', 'login'], { env, input: '\n' });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: no API key on stdin; nothing was stored\n');
  });

  it('doctor logs in to GNS3 v3 with the keychain credentials and says they came from there', async () => {
    const gns3 = await startFakeGns3({ api: 'v3', users: { carol: PASSWORD } });
    try {
      let r = await runCli(['auth', 'login', '--gns3-user', 'carol'], { env, input: `${PASSWORD}\n` });
      expect(r.code, r.stderr).toBe(0);
      r = await runCli(['doctor', '-s', gns3.url, '--base-url', 'http://127.0.0.1:9/v1'], { env: { ...env, GNS3_COPILOT_API_KEY: KEY } });
      expect(r.stdout).toMatch(/^✓ GNS3 controller at .*: API v3, version 3\.0\.6, logged in as carol \(credentials from keychain\)$/m);
      expect(r.stdout).not.toContain(PASSWORD);
    } finally {
      await runCli(['auth', 'logout', '--gns3'], { env });
      await gns3.close();
    }
  });

  it('env vars show up as the source when the keychain has nothing', async () => {
    const r = await runCli(['auth', 'status'], { env: { ...env, OPENAI_API_KEY: KEY, GNS3_USER: 'bob', GNS3_PASSWORD: PASSWORD } });
    expect(r.stdout).toMatch(/^LLM API key\s+✓ set \(env OPENAI_API_KEY\)$/m);
    expect(r.stdout).toMatch(/^GNS3 password\s+✓ set \(env GNS3_PASSWORD\)$/m);
    expect(r.stdout).not.toContain(KEY);
  });
});

describe('auth without a Secret Service', () => {
  it('login explains in one line, points at the env vars and writes nothing', async () => {
    const env = isolatedEnv(); // DBUS_SESSION_BUS_ADDRESS points at a socket that does not exist
    const t0 = Date.now();
    const r = await runCli(['auth', 'login'], { env, input: 'sk-nowhere-0123456789\n' });
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(r.code).toBe(2);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^error: No usable OS keychain \(no Secret Service on the D-Bus session bus\); nothing was stored\. Set GNS3_COPILOT_API_KEY \(or OPENAI_API_KEY\)/,
    );
    expect(filesContaining(env.HOME!, 'sk-nowhere-0123456789')).toEqual([]);
  });

  it('status reports the fallback and env sources; logout fails clearly', async () => {
    const env = isolatedEnv({ GNS3_COPILOT_API_KEY: 'sk-env-abcdef' });
    let r = await runCli(['auth', 'status'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^keychain\s+✗ unavailable: no Secret Service on the D-Bus session bus; set GNS3_COPILOT_API_KEY/m);
    expect(r.stdout).toMatch(/^LLM API key\s+✓ set \(env GNS3_COPILOT_API_KEY\)$/m);
    expect(r.stdout).not.toContain('sk-env-abcdef');
    r = await runCli(['auth', 'logout'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: No usable OS keychain/);
  });

  it('empty stdin says so (exit 2) before the missing keychain does', async () => {
    const env = isolatedEnv();
    let r = await runCli(['auth', 'login'], { env, input: '' });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: no API key on stdin; nothing was stored\n');
    r = await runCli(['auth', 'login', '--gns3-user', 'admin'], { env, input: '\n' });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: no GNS3 password on stdin; nothing was stored\n');
  });

  it('--help says in the description that secrets are never arguments, with no fake argument', async () => {
    const r = await runCli(['auth', 'login', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: gns3-copilot auth login \[options\]$/m);
    expect(r.stdout).not.toMatch(/refused/);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('secrets are never accepted as arguments');
  });
});

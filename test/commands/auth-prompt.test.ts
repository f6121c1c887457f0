import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, isolatedEnv, runCli } from '../helpers/cli-run.js';
import { startSecretService, type SecretService } from '../helpers/secret-service.js';
import { startTerminal } from '../helpers/cli-tmux.js';

describe('auth login on a real terminal (tmux)', () => {
  let ss: SecretService;
  let env: Record<string, string>;
  beforeAll(async () => {
    ss = await startSecretService();
    env = { ...isolatedEnv(), ...ss.env, TERM: 'xterm-256color' };
  });
  afterAll(async () => ss?.stop());

  it('reads the key from a hidden prompt: nothing echoed, stored in the keychain', async () => {
    const KEY = 'sk-typed-at-the-prompt-9b1e';
    const term = startTerminal([process.execPath, BIN, 'auth', 'login'], env);
    try {
      await term.waitFor(/LLM API key:/);
      term.send('-l', KEY);
      term.send('Enter');
      const screen = await term.waitFor(/EXIT=\d+/);
      expect(screen).toMatch(/EXIT=0/);
      expect(screen).toContain('LLM API key stored in the OS keychain');
      expect(screen).not.toContain(KEY);
      expect(screen).not.toContain('*'.repeat(KEY.length));
    } finally {
      term.close();
    }
    const status = await runCli(['auth', 'status'], { env });
    expect(status.stdout).toMatch(/^LLM API key\s+✓ set \(keychain\)$/m);
  });

  it('Ctrl-C at the password prompt stores nothing and exits 130', async () => {
    const term = startTerminal([process.execPath, BIN, 'auth', 'login', '--gns3-user', 'carol'], env);
    try {
      await term.waitFor(/GNS3 password for carol:/);
      term.send('-l', 'half-typed');
      term.send('C-c');
      const screen = await term.waitFor(/EXIT=\d+/);
      expect(screen).toMatch(/EXIT=130/);
      expect(screen).toContain('Aborted: nothing was stored');
      expect(screen).not.toContain('half-typed');
    } finally {
      term.close();
    }
    const status = await runCli(['auth', 'status'], { env });
    expect(status.stdout).toMatch(/^GNS3 password\s+✗ not set$/m);
  });
});

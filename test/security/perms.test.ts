/**
 * Private files: the built binary creates its config, data
 * and state directories 0700 and config.json, sessions.db (+ -wal/-shm) and
 * the log 0600, and tightens ones left 0755/0644 by an older version.
 */
import { describe, expect, it } from 'vitest';
import { chmodSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { llmFlags, runCli } from '../e2e/oneshot-cli.js';
import { cliScope } from '../helpers/cli-scope.js';

const scope = cliScope();

const mode = (p: string) => statSync(p).mode & 0o777;

function paths(home: string) {
  const dirs = {
    config: join(home, 'config/gns3-copilot'),
    data: join(home, 'data/gns3-copilot'),
    state: join(home, 'state/gns3-copilot'),
  };
  const files = {
    config: join(dirs.config, 'config.json'),
    db: join(dirs.data, 'sessions.db'),
    log: join(dirs.state, 'gns3-copilot.log'),
  };
  return { dirs, files };
}

/** A one-shot run; `createConfig` first writes config.json with `config set` (a run alone does not create it). */
async function run(env: NodeJS.ProcessEnv, createConfig = false): Promise<void> {
  if (createConfig) expect((await runCli(['config', 'set', 'on_limit', 'warn'], env)).code).toBe(0);
  const llm = await scope.startLlm([{ text: 'ok' }]);
  const r = await runCli(['-p', 'hello', '--verbose', ...llmFlags(llm.url)], env);
  expect(r.code, r.stderr).toBe(0);
}

describe('file permissions', () => {
  it('new config/data/state dirs are 0700 and config.json, sessions.db and the log 0600', async () => {
    const e = scope.fresh();
    await run(e.env, true);
    const { dirs, files } = paths(e.home);
    for (const d of Object.values(dirs)) expect(mode(d).toString(8), d).toBe('700');
    for (const f of Object.values(files)) expect(mode(f).toString(8), f).toBe('600');
    for (const f of [`${files.db}-wal`, `${files.db}-shm`].filter(existsSync)) expect(mode(f).toString(8), f).toBe('600');
  });

  it('existing world-readable dirs and files are tightened', async () => {
    const e = scope.fresh();
    const { dirs, files } = paths(e.home);
    for (const d of Object.values(dirs)) {
      mkdirSync(d, { recursive: true });
      chmodSync(d, 0o755);
    }
    writeFileSync(files.config, '{}');
    writeFileSync(files.db, '');
    writeFileSync(files.log, '');
    for (const f of Object.values(files)) chmodSync(f, 0o644);
    await run(e.env);
    for (const d of Object.values(dirs)) expect(mode(d).toString(8), d).toBe('700');
    for (const f of Object.values(files)) expect(mode(f).toString(8), f).toBe('600');
  });

  it('config list, sessions list, doctor and a one-shot run each tighten an existing 0644 config.json in a 0755 dir', async () => {
    const e = scope.fresh();
    const { dirs, files } = paths(e.home);
    const llm = await scope.startLlm([{ text: 'ok' }]);
    for (const args of [['config', 'list'], ['sessions', 'list'], ['doctor'], ['-p', 'hello', ...llmFlags(llm.url)]]) {
      mkdirSync(dirs.config, { recursive: true });
      chmodSync(dirs.config, 0o755);
      writeFileSync(files.config, '{"on_limit":"warn"}');
      chmodSync(files.config, 0o644);
      await runCli(args, e.env); // doctor may fail its checks: the permissions are fixed anyway
      expect(mode(dirs.config).toString(8), args.join(' ')).toBe('700');
      expect(mode(files.config).toString(8), args.join(' ')).toBe('600');
    }
  });

  it('a log file outside our directories does not chmod its directory', async () => {
    const e = scope.fresh();
    const shared = join(e.home, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o755);
    await run({ ...e.env, GNS3_COPILOT_LOG_FILE: join(shared, 'copilot.log') });
    expect(mode(shared).toString(8)).toBe('755');
    expect(mode(join(shared, 'copilot.log')).toString(8)).toBe('600');
  });
});

/**
 * Classroom locks hold everywhere: a resumed or
 * continued session, `inject`, and the session's setMode (the TUI's /mode) all
 * yield to a locked mode; GNS3_COPILOT_SYSTEM_CONFIG is honoured only for a
 * root-owned file that group/others cannot write. Built binary, real files.
 */
import { describe, expect, it } from 'vitest';
import { chmodSync, chownSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { llmFlags, runCli } from '../e2e/oneshot-cli.js';
import { parseJsonResult } from '../e2e/oneshot-schema.js';
import { session, tempDir, testSettings, testTools } from '../agent/helpers.js';
import { startFakeGns3 } from '../fakes/gns3/server.js';
import { resolveSystemConfig } from '../../src/config/system-path.js';
import { cliScope } from '../helpers/cli-scope.js';

const scope = cliScope();

/** A classroom file as an admin would install it: owned by root, mode 0644, in a root-only directory. */
function rootSystemConfig(home: string, content: object): string {
  const dir = join(home, 'etc');
  mkdirSync(dir, { mode: 0o755 });
  chmodSync(dir, 0o755);
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(content));
  chmodSync(file, 0o644);
  chownSync(file, 0, 0);
  expect(statSync(file).uid).toBe(0); // tests run as root
  return file;
}

const stopR1 = { id: 's1', name: 'stop_gns3_node', args: { nodes: ['R1'] } };

describe('a locked mode wins over the stored session', () => {
  it('-r ID of a lab session runs in the locked teaching mode, says so, and blocks lab tools', async () => {
    const e = scope.fresh();
    const llm = await scope.startLlm([{ text: 'lab ready' }, { text: 'stopping', tool_calls: [stopR1] }, { text: 'not allowed' }]);
    const a = parseJsonResult((await runCli(['-p', 'set up', '-m', 'lab', '--json', ...llmFlags(llm.url)], e.env)).stdout);
    expect(a.mode).toBe('lab_automation_assistant');
    const sys = rootSystemConfig(e.home, { mode: 'teaching', locked: ['mode'] });
    const env = { ...e.env, GNS3_COPILOT_SYSTEM_CONFIG: sys };
    const r = await runCli(['-p', 'stop R1', '--json', '-r', a.session_id!, ...llmFlags(llm.url)], env);
    expect(r.code, r.stderr).toBe(0);
    const b = parseJsonResult(r.stdout);
    expect(b.session_id).toBe(a.session_id);
    expect(b.mode).toBe('teaching_assistant');
    expect(b.tool_calls[0]).toMatchObject({ name: 'stop_gns3_node', status: 'blocked' });
    expect(r.stderr).toMatch(
      /notice: "mode" is locked to "teaching_assistant" by the system config .*config\.json \(classroom lock\): this session runs in teaching_assistant mode, not lab_automation_assistant/,
    );
    const sent = llm.requests.filter((q) => q.purpose === null)[1]!.body.tools!.map((t) => t.function.name);
    expect(sent).not.toContain('stop_gns3_node');
    const shown = JSON.parse((await runCli(['sessions', 'show', a.session_id!, '--json'], env)).stdout);
    expect(JSON.stringify(shown)).toContain('teaching_assistant');
  });

  it('--continue of a lab session is locked too', async () => {
    const e = scope.fresh();
    const llm = await scope.startLlm([{ text: 'one' }, { text: 'two' }]);
    await runCli(['-p', 'first', '-m', 'lab', '--json', ...llmFlags(llm.url)], e.env);
    const sys = rootSystemConfig(e.home, { locked: { mode: 'teaching' } });
    const r = await runCli(['-p', 'second', '--json', '-c', ...llmFlags(llm.url)], { ...e.env, GNS3_COPILOT_SYSTEM_CONFIG: sys });
    expect(r.code, r.stderr).toBe(0);
    expect(parseJsonResult(r.stdout).mode).toBe('teaching_assistant');
  });

  it('a locked project wins over the project stored on the resumed session', async () => {
    const e = scope.fresh();
    const gns3 = await startFakeGns3({ api: 'v2' });
    scope.onCleanup(() => gns3.close());
    gns3.addProject({ name: 'p1' });
    const p2 = gns3.addProject({ name: 'p2' });
    const llm = await scope.startLlm([{ text: 'one' }, { text: 'two' }]);
    const env = { ...e.env, GNS3_SERVER: gns3.url };
    const a = parseJsonResult((await runCli(['-p', 'first', '--project', 'p1', '--json', ...llmFlags(llm.url)], env)).stdout);
    const sys = rootSystemConfig(e.home, { project: 'p2', locked: ['project'] });
    const r = await runCli(['-p', 'second', '--json', '-r', a.session_id!, ...llmFlags(llm.url)], {
      ...env,
      GNS3_COPILOT_SYSTEM_CONFIG: sys,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(parseJsonResult(r.stdout).project_id).toBe(p2);
  });

  it('`inject` under a lock names the lock and the command, not a --mode nobody typed', async () => {
    const e = scope.fresh();
    const sys = rootSystemConfig(e.home, { mode: 'teaching', locked: ['mode'] });
    const r = await runCli(['inject', 'break it', '--json'], { ...e.env, GNS3_COPILOT_SYSTEM_CONFIG: sys });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error: inject: "mode" is locked to "teaching_assistant" by the system config .*config\.json \(classroom lock\)/,
    );
    expect(r.stderr).not.toContain('--mode');
  });

  it('setMode (the TUI /mode) refuses another mode, naming the lock', async () => {
    const e = scope.fresh();
    const d = tempDir();
    scope.onCleanup(() => d.cleanup());
    const sys = rootSystemConfig(e.home, { mode: 'teaching', locked: ['mode'] });
    const llm = await scope.startLlm([]);
    const s = await session(testSettings(llm.url, d.dir), testTools({ calls: [] }), {
      env: { ...process.env, GNS3_COPILOT_SYSTEM_CONFIG: sys },
    });
    try {
      expect(() => s.setMode('lab_automation_assistant')).toThrow(
        /"mode" is locked to "teaching_assistant" by the system config .* \(classroom lock\)/,
      );
      expect(s.mode).toBe('teaching_assistant');
      s.setMode('teaching_assistant');
    } finally {
      await s.close();
    }
  });
});

describe('a locked agent mode', () => {
  it('AGENT_MODE and --agent-mode cannot change it (exit 2 naming the lock, no LLM call); a session of the other mode is refused on resume', async () => {
    const e = scope.fresh();
    const llm = await scope.startLlm([{ text: 'tree answer' }]);
    const first = await runCli(['-p', 'first', '--agent-mode', 'recursive', '--json', ...llmFlags(llm.url)], e.env);
    expect(first.code, first.stderr).toBe(0);
    const a = parseJsonResult(first.stdout);
    expect(a.resource_usage).toMatchObject({ agents: 1 });
    const sys = rootSystemConfig(e.home, { agent_mode: 'flat', locked: ['agent_mode'] });
    const env = { ...e.env, GNS3_COPILOT_SYSTEM_CONFIG: sys };
    const calls = llm.requests.length;
    for (const [args, extra, who] of [
      [[], { AGENT_MODE: 'recursive' }, 'AGENT_MODE'],
      [['--agent-mode', 'recursive'], {}, '--agent-mode'],
    ] as const) {
      const r = await runCli(['-p', 'x', '--json', ...args, ...llmFlags(llm.url)], { ...env, ...extra });
      expect(r.code).toBe(2);
      expect(r.stderr.trim()).toMatch(
        new RegExp(
          `^error: ${who}: "agent_mode" is locked to "flat" by the system config .*config\\.json \\(classroom lock\\); ask your instructor or remove the override$`,
        ),
      );
    }
    const resumed = await runCli(['-p', 'again', '--json', '-r', a.session_id!, ...llmFlags(llm.url)], env);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr.trim()).toMatch(
      /^error: "agent_mode" is locked to "flat" by the system config .*config\.json \(classroom lock\): session [0-9a-f]{8} runs in agent mode recursive; start a new session$/,
    );
    expect(llm.requests.length).toBe(calls);
  });
});

describe('GNS3_COPILOT_SYSTEM_CONFIG is honoured only for a root-owned, admin-only file', () => {
  const lab = { mode: 'lab', locked: ['mode'] };

  it('a root-owned 0644 file is used', async () => {
    const e = scope.fresh();
    const sys = rootSystemConfig(e.home, lab);
    const r = await runCli(['config', 'get', 'mode', '--origin'], { ...e.env, GNS3_COPILOT_SYSTEM_CONFIG: sys });
    expect(r.stdout).toBe(`lab_automation_assistant\tsystem ${sys} (locked)\n`);
    expect(r.stderr).toBe('');
  });

  it.each([
    ['owned by a user', (f: string) => chownSync(f, 65534, 65534)],
    ['world-writable', (f: string) => chmodSync(f, 0o666)],
    ['group-writable', (f: string) => chmodSync(f, 0o664)],
  ])('a file %s is ignored with a warning', async (_what, spoil) => {
    const e = scope.fresh();
    const sys = rootSystemConfig(e.home, lab);
    spoil(sys);
    const env = { ...e.env, GNS3_COPILOT_SYSTEM_CONFIG: sys };
    expect((await runCli(['config', 'get', 'mode', '--origin'], env)).stdout).toBe('teaching_assistant\tdefault\n');
    const llm = await scope.startLlm([{ text: 'hi' }]);
    const r = await runCli(['-p', 'hello', '--json', ...llmFlags(llm.url)], env);
    expect(r.code, r.stderr).toBe(0);
    expect(parseJsonResult(r.stdout).mode).toBe('teaching_assistant');
    expect(r.stderr).toMatch(
      /^warning: ignored GNS3_COPILOT_SYSTEM_CONFIG=.*config\.json: it is not owned by root or is writable by group\/others \(classroom locks are read only from a root-owned file\)/,
    );
  });

  it('a root-owned file in a user-writable directory is ignored', () => {
    const e = scope.fresh();
    const sys = rootSystemConfig(e.home, lab);
    chmodSync(join(e.home, 'etc'), 0o777);
    const c = resolveSystemConfig({ GNS3_COPILOT_SYSTEM_CONFIG: sys });
    expect(c.file).toBe('/etc/gns3-copilot/config.json');
    expect(c.warning).toMatch(/its directory is not owned by root or is writable by group\/others/);
  });

  it('/dev/null does not lift the locks (not a regular file)', () => {
    const c = resolveSystemConfig({ GNS3_COPILOT_SYSTEM_CONFIG: '/dev/null' });
    expect(c.file).toBe('/etc/gns3-copilot/config.json');
    expect(c.warning).toMatch(/\/dev\/null: it is not a regular file/);
  });
});

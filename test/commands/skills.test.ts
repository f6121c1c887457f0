/**
 * `skills list|show`: the command function with captured output, and the built
 * binary (dist/) end to end — which also proves the built-in skills are found from dist.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useTempXdgConfig } from '../helpers/xdg.js';
import { skillsCommand } from '../../src/commands/skills.js';
import { settingsSchema } from '../../src/config/schema.js';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const root = useTempXdgConfig('skills-cmd-');

async function cmd(action: 'list' | 'show', args: string[], opts: Record<string, unknown> = {}, settings = settingsSchema.parse({})) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await skillsCommand(action, args, opts, settings, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err };
}

describe('skillsCommand', () => {
  it('lists all kinds as text, or one kind', async () => {
    const all = await cmd('list', []);
    expect(all.code).toBe(0);
    expect(all.out).toMatch(/^device \(7\)$/m);
    expect(all.out).toMatch(/^packet \(\d+\)$/m);
    expect(all.out).toMatch(/^injection \(\d+\)$/m);
    const packets = await cmd('list', [], { kind: 'packet' });
    expect(packets.out).not.toMatch(/^device/m);
    expect(packets.out).toMatch(/^\s+ospf\s+OSPFv2 — routing; filter: ospf$/m);
  });

  it('lists as JSON', async () => {
    const r = await cmd('list', [], { kind: 'injection', json: true });
    const j = JSON.parse(r.out);
    expect(j.issues).toEqual([]);
    expect(j.skills.length).toBeGreaterThanOrEqual(30);
    expect(j.skills[0]).toEqual({
      kind: 'injection',
      name: expect.any(String),
      title: expect.any(String),
      description: expect.any(String),
    });
  });

  it('shows each kind as text and JSON, by name, alias or kind:name', async () => {
    const dev = await cmd('show', ['device:frr']);
    expect(dev.out).toMatch(/^FRRouting \(vtysh\) {2}\[device:frr\]/);
    expect(dev.out).toContain('## ospf — ');
    expect(dev.out).toContain('    router ospf');
    const pkt = await cmd('show', ['dot1q']);
    expect(pkt.out).toMatch(/^IEEE 802\.1Q VLAN tag {2}\[packet:vlan\]/);
    expect(pkt.out).toMatch(/^\s+vlan\.id\s+VLAN ID$/m);
    const inj = await cmd('show', ['bgp_remote_as_mismatch']);
    expect(inj.out).toContain('inject (frr):\n  router bgp {{local_as}}\n  neighbor {{neighbor}} remote-as {{wrong_as}}');
    const j = JSON.parse((await cmd('show', ['link_block_bgp'], { json: true })).out);
    expect(j.kind).toBe('injection');
    expect(j.skill.steps.inject.args.filters).toEqual({ bpf: ['tcp port 179'] });
  });

  it('says how eval scores a scenario: diagnosis and repair, diagnosis only for a link filter, or not at all', async () => {
    const cfg = (await cmd('show', ['bgp_remote_as_mismatch'])).out;
    expect(cfg).toMatch(/^ticket: \S.+$/m);
    expect(cfg).toMatch(/^eval: scored on diagnosis \(keywords: .+\) and repair \(its repair check\)$/m);
    const link = (await cmd('show', ['link_block_bgp'])).out;
    expect(link).toMatch(/^eval: scored on diagnosis only: no device configuration removes it \(keywords: .+\)$/m);
    const mtu = (await cmd('show', ['mtu_mismatch'])).out;
    expect(mtu).toMatch(/^eval: not scorable by eval \(it has no trouble ticket and diagnosis\)$/m);
  });

  it('exits 2 with one line for an unknown name, a missing name or a bad --kind', async () => {
    const r = await cmd('show', ['ospff']);
    expect(r.code).toBe(2);
    expect(r.err).toEqual(['unknown skill "ospff" (did you mean ospf?); see: gns3-copilot skills list']);
    expect((await cmd('show', [])).code).toBe(2);
    const k = await cmd('list', [], { kind: 'tools' });
    expect(k.code).toBe(2);
    expect(k.err).toEqual(['--kind must be one of device|packet|injection (got "tools")']);
  });

  it('warns about skipped files on stderr (text) or in "issues" (JSON)', async () => {
    const dir = join(root(), 'own');
    mkdirSync(join(dir, 'packet'), { recursive: true });
    writeFileSync(join(dir, 'packet', 'bad.yaml'), 'protocols: 3\n');
    const settings = settingsSchema.parse({ skills_dir: dir });
    const text = await cmd('list', [], {}, settings);
    expect(text.code).toBe(0);
    expect(text.err).toEqual([expect.stringMatching(/^warning: skipped .*bad\.yaml: protocols: /)]);
    const json = JSON.parse((await cmd('list', [], { json: true }, settings)).out);
    expect(json.issues[0].file).toMatch(/bad\.yaml$/);
  });
});

describe('gns3-copilot skills (built binary)', () => {
  const env = () => ({
    ...process.env,
    HOME: root(),
    XDG_CONFIG_HOME: join(root(), 'xdg'),
    XDG_DATA_HOME: join(root(), 'data'),
    XDG_STATE_HOME: join(root(), 'state'),
    GNS3_COPILOT_SYSTEM_CONFIG: join(root(), 'none.json'),
  });
  const bin = (args: string[], extraEnv: Record<string, string> = {}) =>
    spawnSync(process.execPath, [join(repo, 'bin', 'gns3-copilot.js'), ...args], {
      encoding: 'utf8',
      env: { ...env(), ...extraEnv },
      timeout: 20_000,
    });

  it('finds the built-in skills from dist/', () => {
    const r = bin(['skills', 'list', '--json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.skills.filter((s: any) => s.kind === 'packet').length).toBeGreaterThanOrEqual(40);
  });

  it('exits 2 with one line for an unknown skill', () => {
    const r = bin(['skills', 'show', 'no-such-skill']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/unknown skill "no-such-skill"/);
  });

  it('honours GNS3_COPILOT_SKILLS_DIR', () => {
    const dir = join(root(), 'envskills');
    mkdirSync(join(dir, 'device'), { recursive: true });
    writeFileSync(join(dir, 'device', 'mine.yaml'), 'platform: mybox\ntopics:\n  basics:\n    summary: my own box\n');
    const r = bin(['skills', 'list', '--json'], { GNS3_COPILOT_SKILLS_DIR: dir });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).skills).toEqual([{ kind: 'device', name: 'mybox', title: 'mybox', description: 'topics: basics' }]);
  });
});

/**
 * The skill loader on real files in temp dirs: validation errors that name the file
 * and field, one bad file never hiding the others, reload on change, user override,
 * the settings/env replacement of the built-in dir.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SkillStore, loadSkills, skillStore } from '../../src/skills/loader.js';
import { builtinSkillsDir, resolveSkillDirs, userSkillsDir } from '../../src/skills/paths.js';
import { findPlatform, findProtocol } from '../../src/skills/lookup.js';

let root: string;
let savedXdg: string | undefined;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'skills-loader-'));
  savedXdg = process.env.XDG_CONFIG_HOME;
  process.env.XDG_CONFIG_HOME = join(root, 'xdg');
});
afterEach(() => {
  if (savedXdg === undefined) delete process.env.XDG_CONFIG_HOME;
  else process.env.XDG_CONFIG_HOME = savedXdg;
  rmSync(root, { recursive: true, force: true });
});

function write(dir: string, rel: string, text: string): string {
  const file = join(dir, rel);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
  return file;
}

const ARP = `protocols:
  - protocol: arp
    name: ARP
    layer: l2
    description: address resolution
    display_filter: arp
    fields:
      - {field: arp.opcode, meaning: op}
    checks: [requests without replies]
`;

const DEVICE = `platform: frr
name: FRRouting
aliases: [vtysh]
topics:
  show_commands:
    summary: show things
    commands:
      - {command: show ip route, purpose: routes}
`;

const SCENARIO = `scenarios:
  - id: if_down
    title: Interface down
    category: interface
    severity: high
    difficulty: easy
    platforms: [frr]
    target: device
    description: shut
    parameters:
      - {name: interface, description: iface, example: eth0}
    inject: {frr: ["interface {{interface}}", shutdown]}
    restore: {frr: ["interface {{interface}}", no shutdown]}
    symptoms: [down]
    hints: [look]
`;

describe('skill loader', () => {
  it('loads the three kinds from a folder', () => {
    const base = join(root, 'base');
    write(base, 'packet/l2.yaml', ARP);
    write(base, 'device/frr.yaml', DEVICE);
    write(base, 'injection/if.yml', SCENARIO);
    const lib = new SkillStore([base]).load();
    expect(lib.issues).toEqual([]);
    expect([...lib.packet.keys()]).toEqual(['arp']);
    expect(lib.device.get('frr')?.topics.show_commands?.commands?.[0]?.command).toBe('show ip route');
    expect(lib.injection.get('if_down')?.parameters[0]).toEqual({ name: 'interface', description: 'iface', example: 'eth0' });
    expect(lib.sources.get('packet:arp')).toBe(join(base, 'packet/l2.yaml'));
  });

  it('reports a bad file with its path and the failing field, and still loads the others', () => {
    const base = join(root, 'base');
    write(base, 'packet/good.yaml', ARP);
    const bad = write(base, 'packet/bad.yaml', ARP.replace('protocol: arp', 'protocol: icmp').replace('display_filter: arp', 'display_filter: 42'));
    const broken = write(base, 'device/broken.yaml', 'platform: [unclosed\n');
    const lib = new SkillStore([base]).load();
    expect(lib.packet.has('arp')).toBe(true);
    expect(lib.packet.has('icmp')).toBe(false);
    const badIssue = lib.issues.find((i) => i.file === bad);
    expect(badIssue?.message).toMatch(/^protocols\[0\]\.display_filter \(icmp\): /);
    const yamlIssue = lib.issues.find((i) => i.file === broken);
    expect(yamlIssue?.message).toMatch(/^YAML: /);
    expect(lib.issues).toHaveLength(2);
  });

  it('validates scenarios: undeclared placeholders, missing platform commands, link filter ranges', () => {
    const base = join(root, 'base');
    write(base, 'injection/a.yaml', SCENARIO.replace('{{interface}}", shutdown', '{{iface}}", shutdown'));
    write(base, 'injection/b.yaml', SCENARIO.replace('platforms: [frr]', 'platforms: [frr, cisco_ios]').replace('id: if_down', 'id: b'));
    write(
      base,
      'injection/c.yaml',
      `scenarios:
  - {id: loss, title: Loss, category: link, severity: low, difficulty: easy, platforms: [any], target: link,
     description: d, link_filter: {packet_loss: [150], bogus: [1]}, symptoms: [s], hints: [h]}
`,
    );
    const lib = new SkillStore([base]).load();
    const msg = (f: string) => lib.issues.find((i) => i.file.endsWith(f))?.message ?? '';
    expect(msg('a.yaml')).toContain('scenarios[0].inject.frr[0] (if_down): placeholder {{iface}} is not declared');
    expect(msg('b.yaml')).toContain('inject.cisco_ios (b): missing commands for listed platform cisco_ios');
    expect(msg('c.yaml')).toContain('link_filter.packet_loss[0] (loss): must be an integer in 0..100');
    expect(msg('c.yaml')).toContain('link_filter.bogus (loss): unknown filter');
    expect(lib.injection.size).toBe(0);
  });

  it('reports unknown keys (typos) instead of ignoring them', () => {
    const base = join(root, 'base');
    const f = write(base, 'packet/typo.yaml', ARP.replace('checks:', 'chekcs:'));
    const lib = new SkillStore([base]).load();
    expect(lib.issues[0]?.file).toBe(f);
    expect(lib.issues[0]?.message).toMatch(/checks|chekcs/);
  });

  it('flags duplicate keys within one layer and keeps the first', () => {
    const base = join(root, 'base');
    write(base, 'packet/a.yaml', ARP);
    write(base, 'packet/b.yaml', ARP.replace('name: ARP', 'name: ARP again'));
    const lib = new SkillStore([base]).load();
    expect(lib.packet.get('arp')?.name).toBe('ARP');
    expect(lib.issues[0]?.message).toMatch(/duplicate packet entry "arp"/);
  });

  it('re-reads a file only when it changes, and picks up new and deleted files', () => {
    const base = join(root, 'base');
    const f = write(base, 'packet/l2.yaml', ARP);
    const store = new SkillStore([base]);
    const first = store.load();
    expect(store.load()).toBe(first); // nothing changed: the same object, no re-parse
    writeFileSync(f, ARP.replace('name: ARP', 'name: Address Resolution Protocol'));
    const later = new Date(Date.now() + 2000);
    utimesSync(f, later, later);
    const second = store.load();
    expect(second).not.toBe(first);
    expect(second.packet.get('arp')?.name).toBe('Address Resolution Protocol');

    const extra = write(base, 'packet/l3.yaml', ARP.replace('protocol: arp', 'protocol: icmp'));
    expect(store.load().packet.has('icmp')).toBe(true);
    rmSync(extra);
    expect(store.load().packet.has('icmp')).toBe(false);

    // A file broken by an edit is reported; fixing it brings the entry back.
    writeFileSync(f, 'protocols: nope');
    expect(store.load().packet.has('arp')).toBe(false);
    writeFileSync(f, ARP);
    utimesSync(f, new Date(Date.now() + 4000), new Date(Date.now() + 4000));
    expect(store.load().packet.has('arp')).toBe(true);
  });

  it('merges the user dir over the base: entries replaced by key, device topics merged', () => {
    const base = join(root, 'base');
    write(base, 'packet/l2.yaml', ARP);
    write(base, 'device/frr.yaml', DEVICE);
    const user = userSkillsDir();
    expect(user).toBe(join(root, 'xdg', 'gns3-copilot', 'skills'));
    write(user, 'packet/mine.yaml', ARP.replace('name: ARP', 'name: My ARP'));
    write(
      user,
      'device/frr-extra.yaml',
      `platform: frr
aliases: [frrouting]
topics:
  evpn:
    summary: my EVPN notes
`,
    );
    const lib = loadSkills({ skills_dir: base }, {});
    expect(lib.issues).toEqual([]);
    expect(lib.packet.get('arp')?.name).toBe('My ARP');
    const frr = lib.device.get('frr')!;
    expect(Object.keys(frr.topics)).toEqual(['show_commands', 'evpn']);
    expect(frr.name).toBe('FRRouting');
    expect(findPlatform(lib, 'FRRouting')?.platform).toBe('frr');
    expect(findPlatform(lib, 'vtysh')?.platform).toBe('frr');
    expect(lib.sources.get('packet:arp')).toBe(join(user, 'packet/mine.yaml'));
  });

  it('takes the base dir from settings, then GNS3_COPILOT_SKILLS_DIR, else the package folder', () => {
    expect(resolveSkillDirs({ skills_dir: '/x/skills' }, { GNS3_COPILOT_SKILLS_DIR: '/y' })[0]).toBe('/x/skills');
    expect(resolveSkillDirs({}, { GNS3_COPILOT_SKILLS_DIR: '/y' })[0]).toBe('/y');
    expect(resolveSkillDirs({}, {})[0]).toBe(builtinSkillsDir());
    expect(builtinSkillsDir()).toMatch(/\/skills$/);
    const envDir = join(root, 'envdir');
    write(envDir, 'packet/x.yaml', ARP);
    const lib = skillStore(undefined, { GNS3_COPILOT_SKILLS_DIR: envDir }).load();
    expect([...lib.packet.keys()]).toEqual(['arp']);
    expect(findProtocol(lib, 'ARP')?.protocol).toBe('arp');
  });

});

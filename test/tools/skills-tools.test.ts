/**
 * device_skills, packet_analysis_skills and injection_skills through their run()
 * with a real ToolContext, on the built-in skills plus a user dir in a temp folder.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempXdgConfig } from '../helpers/xdg.js';
import { MODE_TOOLS, TOOL_NAMES } from '../../src/core/modes.js';
import { settingsSchema } from '../../src/config/schema.js';
import type { Logger } from '../../src/log.js';
import { skillTools } from '../../src/tools/skills/index.js';
import type { ToolContext, ToolDef } from '../../src/tools/types.js';
import { outcomeText } from '../../src/tools/registry.js';

const root = useTempXdgConfig('skills-tools-');
const warnings: string[] = [];
const log: Logger = { error() {}, warn: (m, d) => warnings.push(`${m} ${JSON.stringify(d)}`), info() {}, debug() {} };

const ctx = (settings: Record<string, unknown> = {}): ToolContext => ({
  settings: settingsSchema.parse(settings),
  signal: new AbortController().signal,
  log,
  project: async () => {
    throw new Error('skill tools must not need a project');
  },
  services: new Map(),
});

const tool = (name: string): ToolDef => skillTools.find((t) => t.name === name)!;

async function call(name: string, args: Record<string, unknown>, settings: Record<string, unknown> = {}): Promise<any> {
  const t = tool(name);
  const out = outcomeText(await t.run(t.schema.parse(args), ctx(settings)));
  expect(out).not.toMatch(/\n/); // compact JSON
  return JSON.parse(out);
}

describe('skill tool registration', () => {
  it('exports the four tools, read-only, with names the modes know', () => {
    expect(skillTools.map((t) => t.name).sort()).toEqual([
      'device_skills',
      'injection_skills',
      'packet_analysis',
      'packet_analysis_skills',
    ]);
    for (const t of skillTools) {
      expect(TOOL_NAMES).toContain(t.name);
      expect(t.risk).toBe('read');
      expect(t.description.length).toBeGreaterThan(40);
    }
    expect(MODE_TOOLS.troubleshooting_injection).toContain('injection_skills');
    expect(MODE_TOOLS.teaching_assistant).toContain('device_skills');
  });
});

describe('device_skills', () => {
  it('lists platforms and their topics without arguments', async () => {
    const r = await call('device_skills', {});
    expect(r.status).toBe('success');
    const frr = r.platforms.find((p: any) => p.platform === 'frr');
    expect(frr.topics).toEqual(expect.arrayContaining(['show_commands', 'ospf', 'bgp', 'pitfalls']));
    expect(r.platforms.map((p: any) => p.platform)).toEqual(
      expect.arrayContaining(['cisco_ios', 'vpcs', 'huawei_vrp', 'juniper_junos', 'arista_eos', 'linux']),
    );
  });

  it('lists topics of a platform found by alias or netmiko device type', async () => {
    const r = await call('device_skills', { platform: 'cisco_ios_telnet' });
    expect(r.platform).toBe('cisco_ios');
    expect(r.topics.map((t: any) => t.topic)).toContain('vlan');
    expect((await call('device_skills', { platform: 'Huawei' })).platform).toBe('huawei_vrp');
  });

  it('returns a topic, and errors usefully for unknown names', async () => {
    const r = await call('device_skills', { platform: 'frr', topic: 'ospf' });
    expect(r).toMatchObject({ status: 'success', platform: 'frr', topic: 'ospf' });
    expect(r.config).toContain('router ospf');
    expect(r.verify).toContain('show ip ospf neighbor');
    const p = await call('device_skills', { platform: 'nokia_sros' });
    expect(p.status).toBe('error');
    expect(p.available).toContain('frr');
    const t = await call('device_skills', { platform: 'vpcs', topic: 'bgp' });
    expect(t).toMatchObject({ status: 'error', error: 'platform vpcs has no topic "bgp"' });
    expect(t.available).toContain('ip_config');
  });

  it('says which platforms cover a topic when only the topic is given', async () => {
    const r = await call('device_skills', { topic: 'bgp' });
    expect(r.platforms).toEqual(expect.arrayContaining(['frr', 'cisco_ios']));
    expect(r.platforms).not.toContain('vpcs');
  });
});

describe('packet_analysis_skills', () => {
  it('lists protocols by layer', async () => {
    const r = await call('packet_analysis_skills', {});
    expect(r.count).toBeGreaterThanOrEqual(40);
    expect(r.protocols_by_layer.routing).toEqual(expect.arrayContaining(['ospf', 'bgp', 'rip']));
  });

  it('returns one entry with filter, fields and checks; aliases work', async () => {
    const r = await call('packet_analysis_skills', { protocol: 'OSPF' });
    expect(r).toMatchObject({ status: 'success', protocol: 'ospf', display_filter: 'ospf' });
    expect(r.fields.map((f: any) => f.field)).toContain('ospf.hello.hello_interval');
    expect(r.checks.length).toBeGreaterThan(0);
    expect((await call('packet_analysis_skills', { protocol: '802.1q' })).protocol).toBe('vlan');
  });

  it('takes several protocols and reports the unknown ones', async () => {
    const r = await call('packet_analysis_skills', { protocol: 'arp, bgp, ospff' });
    expect(r.protocols.map((p: any) => p.protocol)).toEqual(['arp', 'bgp']);
    expect(r.missing).toEqual([{ name: 'ospff', did_you_mean: ['ospf'] }]);
    const none = await call('packet_analysis_skills', { protocol: 'quic-over-carrier-pigeon' });
    expect(none.status).toBe('error');
  });
});

describe('injection_skills', () => {
  it('lists scenarios with categories and filters them', async () => {
    const all = await call('injection_skills', {});
    expect(all.count).toBeGreaterThanOrEqual(30);
    expect(all.categories.ospf).toBeGreaterThan(3);
    const hardOspf = await call('injection_skills', { category: 'ospf', difficulty: 'hard' });
    expect(hardOspf.count).toBeGreaterThan(0);
    for (const s of hardOspf.scenarios) expect(s).toMatchObject({ category: 'ospf', difficulty: 'hard' });
    const vpcs = await call('injection_skills', { platform: 'vpcs' });
    expect(vpcs.scenarios.some((s: any) => s.id === 'vpcs_wrong_gateway')).toBe(true);
    expect(vpcs.scenarios.some((s: any) => s.target === 'link')).toBe(true); // link faults fit any platform
    expect(vpcs.scenarios.some((s: any) => s.id === 'bgp_neighbor_shutdown')).toBe(false);
  });

  it('offers only the scenarios of inject_level: ccna easy, ccnp easy and medium, ccie all', async () => {
    const all = await call('injection_skills', {});
    const count = (d: string[]) => all.scenarios.filter((s: any) => d.includes(s.difficulty)).length;
    const ccna = await call('injection_skills', {}, { inject_level: 'ccna' });
    expect(ccna).toMatchObject({ inject_level: 'ccna', count: count(['easy']) });
    expect(ccna.count).toBeGreaterThan(0);
    expect(ccna.scenarios.every((s: any) => s.difficulty === 'easy')).toBe(true);
    const ccnp = await call('injection_skills', {}, { inject_level: 'ccnp' });
    expect(ccnp.count).toBe(count(['easy', 'medium']));
    expect(ccnp.count).toBeLessThan(all.count);
    const hard = all.scenarios.find((s: any) => s.difficulty === 'hard');
    const refused = await call('injection_skills', { id: hard.id }, { inject_level: 'ccnp' });
    expect(refused).toMatchObject({
      status: 'error',
      error: `scenario ${hard.id} is hard; inject_level ccnp offers easy, medium scenarios only`,
    });
  });

  it('gives a device scenario with per-platform inject/restore commands', async () => {
    const r = await call('injection_skills', { id: 'ospf_hello_interval_mismatch' });
    expect(r).toMatchObject({ status: 'success', id: 'ospf_hello_interval_mismatch', severity: 'high', platforms: ['frr', 'cisco_ios'] });
    expect(r.inject).toEqual({
      tool: 'execute_multiple_device_config_commands',
      config_commands: {
        frr: ['interface {{interface}}', 'ip ospf hello-interval 25'],
        cisco_ios: ['interface {{interface}}', 'ip ospf hello-interval 25'],
      },
      fault: { scenario: 'ospf_hello_interval_mismatch' },
    });
    // the fault ledger's repair check, with its placeholders
    expect(r.repair_check).toEqual({
      config: { device: '{{device}}', section: 'interface {{interface}}', lacks: 'ip ospf hello-interval 25' },
    });
    expect(r.restore.config_commands.frr).toEqual(['interface {{interface}}', 'no ip ospf hello-interval']);
    expect(r.parameters[0]).toMatchObject({ name: 'interface', example: 'eth0' });
    expect(r.symptoms.length).toBeGreaterThan(0);
    expect(r.hints.length).toBeGreaterThan(0);
  });

  it('gives a link scenario as manage_gns3_packet_filter calls', async () => {
    const r = await call('injection_skills', { id: 'link_packet_loss_30' });
    expect(r.inject).toEqual({
      tool: 'manage_gns3_packet_filter',
      args: { link: '<link>', action: 'set', filters: { packet_loss: [30] }, fault: { scenario: 'link_packet_loss_30' } },
    });
    expect(r.restore).toEqual({ tool: 'manage_gns3_packet_filter', args: { link: '<link>', action: 'clear' } });
  });

  it('suggests ids for an unknown one', async () => {
    const r = await call('injection_skills', { id: 'ospf_hello' });
    expect(r.status).toBe('error');
    expect(r.did_you_mean).toContain('ospf_hello_interval_mismatch');
  });
});

describe('user skills and broken files', () => {
  it('serves a user-added scenario and reports a broken user file without losing the rest', async () => {
    const user = join(root(), 'xdg', 'gns3-copilot', 'skills', 'injection');
    mkdirSync(user, { recursive: true });
    writeFileSync(
      join(user, 'class.yaml'),
      `scenarios:
  - {id: class_delay, title: Class delay, category: link, severity: low, difficulty: easy, platforms: [any], target: link,
     description: slow link for week 3, link_filter: {delay: [200]}, symptoms: [slow], hints: [measure RTT]}
`,
    );
    writeFileSync(join(user, 'broken.yaml'), 'scenarios:\n  - id: x\n');
    const r = await call('injection_skills', { id: 'class_delay' });
    expect(r.inject.args.filters).toEqual({ delay: [200] });
    expect(r.warnings).toEqual([expect.stringMatching(/^skipped .*broken\.yaml: scenarios\[0\]\.title \(x\): /)]);
    const list = await call('injection_skills', {});
    expect(list.count).toBeGreaterThanOrEqual(31);
    expect(warnings.some((w) => w.includes('broken.yaml'))).toBe(true);
  });
});

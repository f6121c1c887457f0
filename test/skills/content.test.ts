/**
 * The shipped skills: they load without issues, cover what the modes need, and every
 * tshark field name and display filter is accepted by the real tshark on this machine.
 * tshark is a required peer: without it these tests fail (never skip).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SkillStore, type SkillLibrary } from '../../src/skills/loader.js';
import { builtinSkillsDir } from '../../src/skills/paths.js';
import { LINK_FILTERS } from '../../src/skills/schema.js';
import { displayFilterError, findTshark, tsharkFieldNames } from '../../src/packets/tshark.js';

let lib: SkillLibrary;
let scratch: string;

beforeAll(() => {
  lib = new SkillStore([builtinSkillsDir()]).load();
  scratch = mkdtempSync(join(tmpdir(), 'skills-content-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('built-in skills', () => {
  it('load without a single issue', () => {
    expect(lib.issues).toEqual([]);
  });

  it('cover the device platforms with the expected topics', () => {
    const routers = ['frr', 'cisco_ios', 'huawei_vrp', 'juniper_junos', 'arista_eos'];
    for (const p of [...routers, 'vpcs', 'linux']) expect(lib.device.has(p), p).toBe(true);
    for (const p of routers)
      for (const topic of ['show_commands', 'interfaces', 'ospf', 'bgp', 'static_routing', 'vlan', 'acl', 'verification', 'pitfalls'])
        expect(lib.device.get(p)!.topics[topic], `${p}.${topic}`).toBeDefined();
  });

  it('have at least 40 packet-analysis protocols including the core ones', () => {
    expect(lib.packet.size).toBeGreaterThanOrEqual(40);
    const core = ['arp', 'icmp', 'ospf', 'bgp', 'rip', 'eigrp', 'stp', 'lacp', 'vlan', 'dhcp', 'dns', 'http', 'tls', 'tcp_handshake',
      'tcp_retransmissions', 'udp', 'vrrp', 'hsrp', 'lldp', 'cdp', 'ipv6_nd', 'icmpv6', 'ntp', 'snmp', 'ssh', 'telnet', 'syslog',
      'gre', 'ipsec', 'mpls', 'ldp', 'pim', 'igmp'];
    for (const p of core) expect(lib.packet.has(p), p).toBe(true);
  });

  it('have at least 30 injection scenarios with device and link faults', () => {
    const all = [...lib.injection.values()];
    expect(all.length).toBeGreaterThanOrEqual(30);
    expect(all.filter((s) => s.platforms.includes('frr')).length).toBeGreaterThanOrEqual(15);
    const link = all.filter((s) => s.target === 'link');
    const used = new Set(link.flatMap((s) => Object.keys(s.link_filter!)));
    for (const f of Object.keys(LINK_FILTERS)) expect(used.has(f), f).toBe(true);
    for (const level of ['easy', 'medium', 'hard']) expect(all.some((s) => s.difficulty === level)).toBe(true);
  });
});

describe('packet skills against the real tshark', () => {
  it('tshark is installed (required peer)', () => {
    expect(findTshark(), 'install tshark (apt-get install tshark)').toBeTruthy();
    expect(execFileSync(findTshark()!, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })).toMatch(/^TShark/);
  });

  it('every field name exists in `tshark -G fields`', async () => {
    const known = await tsharkFieldNames();
    expect(known.size).toBeGreaterThan(10_000);
    const bad: string[] = [];
    for (const p of lib.packet.values()) for (const f of p.fields) if (!known.has(f.field)) bad.push(`${p.protocol}: ${f.field}`);
    expect(bad).toEqual([]);
  });

  it('field names quoted in the checks text exist too', async () => {
    const known = await tsharkFieldNames();
    const bad: string[] = [];
    for (const p of lib.packet.values())
      for (const c of p.checks)
        for (const m of c.matchAll(/\b([a-z][a-z0-9]*)\.[a-z_][a-z0-9_.]*[a-z0-9_]\b/g)) {
          // only tokens that start with a protocol tshark knows (skips "224.0.0.5", "e.g.")
          if (known.has(m[1]!) && !known.has(m[0])) bad.push(`${p.protocol}: ${m[0]}`);
        }
    expect(bad).toEqual([]);
  });

  it('every display filter compiles', async () => {
    const all = [...lib.packet.values()];
    // One tshark run for all (each start costs ~0.3 s); per-filter runs only to name a culprit.
    const combined = all.map((p) => `(${p.display_filter})`).join(' || ');
    if ((await displayFilterError(combined, scratch)) === null) return;
    const bad: string[] = [];
    for (const p of all) {
      const err = await displayFilterError(p.display_filter, scratch);
      if (err) bad.push(`${p.protocol}: ${p.display_filter}: ${err}`);
    }
    expect(bad).toEqual([]);
  });

  it('the filter check really rejects bad filters', async () => {
    expect(await displayFilterError('ospf && nosuchproto', scratch)).toMatch(/nosuchproto is neither a field nor a protocol/);
    expect(await displayFilterError('icmp and', scratch)).toBeTruthy();
  });
});

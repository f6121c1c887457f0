/** The approval preview: commands played on a captured configuration the way the device's CLI reads them. Table-driven. */
import { describe, expect, it } from 'vitest';
import { applyConfigCommands, applyVpcsCommands, previewDevice } from '../../src/checkpoints/preview.js';

const FRR = [
  'frr version 8.4.4',
  'frr defaults traditional',
  'hostname r1',
  'no ipv6 forwarding',
  '!',
  'interface eth0',
  ' description to r2',
  ' ip address 10.0.1.1/24',
  'exit',
  '!',
  'router ospf',
  ' ospf router-id 10.255.255.1',
  ' network 10.0.1.0/24 area 0',
  'exit',
  '!',
  'end',
].join('\n');

const cases: { name: string; commands: string[]; has: string[]; lacks?: string[] }[] = [
  {
    name: 'a new block with its lines, left by exit',
    commands: ['router bgp 65001', ' neighbor 10.0.1.2 remote-as 65002', 'exit', 'ip route 0.0.0.0/0 10.0.1.2'],
    has: ['router bgp 65001', ' neighbor 10.0.1.2 remote-as 65002', 'ip route 0.0.0.0/0 10.0.1.2'],
  },
  {
    name: 'a line added inside an existing block (no exit at the end)',
    commands: ['configure terminal', 'router ospf', ' network 10.0.2.0/24 area 0'],
    has: ['router ospf', ' network 10.0.1.0/24 area 0', ' network 10.0.2.0/24 area 0'],
  },
  {
    name: 'a single-valued setting replaces the old value',
    commands: ['interface eth0', ' description core link'],
    has: [' description core link'],
    lacks: [' description to r2'],
  },
  { name: 'no <block> removes the block', commands: ['no router ospf'], has: [], lacks: ['router ospf', ' network 10.0.1.0/24 area 0'] },
  {
    name: 'no <line> inside a block, and `no x` by prefix',
    commands: ['router ospf', ' no network 10.0.1.0/24 area 0', 'exit', 'interface eth0', ' no ip address', 'end'],
    has: ['router ospf', 'interface eth0'],
    lacks: [' network 10.0.1.0/24 area 0', ' ip address 10.0.1.1/24'],
  },
  { name: 'x undoes a stored `no x`', commands: ['ipv6 forwarding'], has: ['ipv6 forwarding'], lacks: ['no ipv6 forwarding'] },
  {
    name: 'a top-level block named inside another block leaves it first',
    commands: ['router ospf', ' passive-interface lo', 'interface lo', ' ip address 10.255.255.1/32'],
    has: ['interface lo', ' ip address 10.255.255.1/32', ' passive-interface lo'],
  },
];

describe('applyConfigCommands', () => {
  for (const c of cases)
    it(c.name, () => {
      const after = applyConfigCommands(FRR, c.commands).split('\n');
      for (const l of c.has) expect(after).toContain(l);
      for (const l of c.lacks ?? []) expect(after).not.toContain(l);
      // the dump's noise is not part of either side
      expect(after).not.toContain('!');
      expect(after.some((l) => l.startsWith('frr version'))).toBe(false);
    });

  it('nests address-family blocks', () => {
    const after = applyConfigCommands('router bgp 1\n neighbor 10.0.0.2 remote-as 2\nexit', [
      'router bgp 1',
      ' address-family ipv4 unicast',
      '  network 10.1.0.0/16',
      ' exit-address-family',
      ' neighbor 10.0.0.3 remote-as 3',
    ]);
    expect(after).toBe(
      [
        'router bgp 1',
        ' neighbor 10.0.0.2 remote-as 2',
        ' address-family ipv4 unicast',
        '  network 10.1.0.0/16',
        ' neighbor 10.0.0.3 remote-as 3',
      ].join('\n'),
    );
  });
});

describe('applyVpcsCommands', () => {
  it.each([
    ['', ['ip 192.168.1.10/24 192.168.1.1'], 'ip 192.168.1.10/24 192.168.1.1'],
    ['', ['ip 192.168.1.10 255.255.0.0 192.168.1.1'], 'ip 192.168.1.10/16 192.168.1.1'],
    ['ip 10.0.0.5/24 10.0.0.1', ['ip dns 8.8.8.8'], 'ip 10.0.0.5/24 10.0.0.1\nip dns 8.8.8.8'],
    ['ip 10.0.0.5/24 10.0.0.1\nip dns 8.8.8.8', ['clear ip'], ''],
    ['ip 10.0.0.5/24 10.0.0.1', ['ping 10.0.0.1', 'show ip'], 'ip 10.0.0.5/24 10.0.0.1'],
  ])('%j + %j', (config, commands, after) => {
    expect(applyVpcsCommands(config, commands)).toBe(after);
  });
});

describe('previewDevice', () => {
  it('diffs the configuration now against it after the commands, with one line of context', () => {
    const p = previewDevice('r1', ['router ospf', ' network 10.0.2.0/24 area 0', 'exit'], { platform: 'frr', config: FRR });
    expect(p.error).toBeUndefined();
    expect(p.diff).toContain('--- r1 now');
    expect(p.diff).toContain('+++ r1 after these commands');
    expect(p.diff!.split('\n').filter((l) => /^[+-][^+-]/.test(l))).toEqual(['+ network 10.0.2.0/24 area 0']);
  });

  it('is empty when the commands change nothing, and says why when there is no preview', () => {
    expect(previewDevice('r1', ['router ospf', ' network 10.0.1.0/24 area 0'], { platform: 'frr', config: FRR }).diff).toBe('');
    expect(previewDevice('sw1', ['set system host-name x'], { platform: 'juniper', config: 'system {}' }).error).toMatch(
      /no preview for juniper/,
    );
    expect(previewDevice('R9', ['x'], { error: 'no node named "R9"' }).error).toMatch(/cannot read R9 \(no node named "R9"\)/);
    expect(previewDevice('PC1', ['ip 10.1.1.1/24'], { platform: 'vpcs', config: '' }).diff).toMatch(/^\+ip 10\.1\.1\.1\/24$/m);
  });

  it('plays an entry of several lines line by line, and leaves out a line the engine would never send', () => {
    const p = previewDevice('r1', ['router ospf\n network 10.0.2.0/24 area 0', ' network 10.0.9.0/24\u0015 area 0'], {
      platform: 'frr',
      config: FRR,
    });
    expect(p.diff!.split('\n').filter((l) => /^[+-][^+-]/.test(l))).toEqual(['+ network 10.0.2.0/24 area 0']);
  });
});

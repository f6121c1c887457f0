/** The hierarchical configuration diff: the commands that take a running-config back to its checkpoint, by table. */
import { describe, expect, it } from 'vitest';
import { negate, parseConfig, planText, restorePlan } from '../../src/checkpoints/hier-diff.js';
import { unifiedDiff, diffLines } from '../../src/checkpoints/unified-diff.js';

const cfg = (...lines: string[]) =>
  ['Building configuration...', '', 'Current configuration:', '!', 'frr version 8.4.4', ...lines, '!', 'end'].join('\n');

const BASE = cfg(
  'hostname r1',
  'no ipv6 forwarding',
  '!',
  'interface eth0',
  ' description uplink to r2',
  ' ip address 10.0.1.1/24',
  'exit',
  '!',
  'router bgp 65001',
  ' neighbor 10.0.1.2 remote-as 65002',
  ' !',
  ' address-family ipv4 unicast',
  '  network 10.1.0.0/16',
  ' exit-address-family',
  'exit',
  '!',
  'route-map RM permit 10',
  ' match ip address prefix-list P',
  'exit',
);

/** BASE with `edit` applied to its lines (the checkpoint is BASE; the device now runs the edited text). */
const now = (edit: (lines: string[]) => string[]) => edit(BASE.split('\n')).join('\n');
const insertAfter =
  (anchor: string, ...add: string[]) =>
  (l: string[]) => {
    const i = l.indexOf(anchor);
    return [...l.slice(0, i + 1), ...add, ...l.slice(i + 1)];
  };
const replace = (from: string, to: string) => (l: string[]) => l.map((x) => (x === from ? to : x));
const drop =
  (...gone: string[]) =>
  (l: string[]) =>
    l.filter((x) => !gone.includes(x));
const before =
  (anchor: string, ...add: string[]) =>
  (l: string[]) => {
    const i = l.indexOf(anchor);
    return [...l.slice(0, i), ...add, ...l.slice(i)];
  };

describe('restorePlan (Cisco-like hierarchical diff)', () => {
  it.each<[string, string, string[]]>([
    ['nothing changed', BASE, []],
    [
      'a line added to an interface is negated inside it',
      now(insertAfter(' ip address 10.0.1.1/24', ' ip ospf cost 50')),
      ['interface eth0', ' no ip ospf cost 50', ' exit'],
    ],
    [
      'a line removed from an interface is re-added inside it',
      now(drop(' ip address 10.0.1.1/24')),
      ['interface eth0', ' ip address 10.0.1.1/24', ' exit'],
    ],
    [
      'a changed description is set back, not negated first',
      now(replace(' description uplink to r2', ' description changed by the agent')),
      ['interface eth0', ' description uplink to r2', ' exit'],
    ],
    [
      'a description added where there was none goes by its keyword alone (FRR refuses the text after `no description`)',
      now(insertAfter('route-map RM permit 10', ' description set by the agent')),
      ['route-map RM permit 10', ' no description', ' exit'],
    ],
    ['an added banner goes by its keyword and type', now(insertAfter('hostname r1', 'banner motd ^C lab ^C')), ['no banner motd']],
    [
      'a router ospf block with networks added is removed by its header',
      now(before('route-map RM permit 10', 'router ospf', ' ospf router-id 10.255.255.1', ' network 10.0.0.0/16 area 0', 'exit', '!')),
      ['no router ospf'],
    ],
    [
      'a physical interface block added loses its lines; a loopback goes by its header',
      now(
        insertAfter(
          'exit',
          '!',
          'interface eth1',
          ' ip ospf network point-to-point',
          ' ip ospf hello-interval 1',
          'exit',
          '!',
          'interface lo1',
          ' ip address 1.1.1.1/32',
          'exit',
        ),
      ),
      ['no interface lo1', 'interface eth1', ' no ip ospf hello-interval 1', ' no ip ospf network point-to-point', ' exit'],
    ],
    [
      'a network added inside a nested address-family is negated there',
      now(insertAfter('  network 10.1.0.0/16', '  network 10.2.0.0/16')),
      ['router bgp 65001', ' address-family ipv4 unicast', '  no network 10.2.0.0/16', '  exit', ' exit'],
    ],
    [
      'a network removed from a nested address-family is re-added there',
      now(drop('  network 10.1.0.0/16')),
      ['router bgp 65001', ' address-family ipv4 unicast', '  network 10.1.0.0/16', '  exit', ' exit'],
    ],
    [
      'a deleted block comes back whole, first',
      now((l) => drop('route-map RM permit 10', ' match ip address prefix-list P')(l).slice(0, -3).concat(['!', 'end'])),
      ['route-map RM permit 10', ' match ip address prefix-list P', ' exit'],
    ],
    ['an already negated line that was removed is re-added as it was', now(drop('no ipv6 forwarding')), ['no ipv6 forwarding']],
    ['a negated line that was added is negated back', now(insertAfter('hostname r1', 'no ip forwarding')), ['ip forwarding']],
    ['a renamed host gets its name back', now(replace('hostname r1', 'hostname core1')), ['hostname r1']],
    [
      'in a safe order: lost blocks, edits (negations first), gained blocks last',
      now((l) =>
        insertAfter(
          ' ip address 10.0.1.1/24',
          ' ip ospf cost 50',
        )(
          replace(
            ' neighbor 10.0.1.2 remote-as 65002',
            ' neighbor 10.0.1.9 remote-as 65009',
          )(drop('route-map RM permit 10', ' match ip address prefix-list P')(l)),
        ).concat(['router ospf', ' network 10.0.0.0/16 area 0', 'exit']),
      ),
      [
        'route-map RM permit 10',
        ' match ip address prefix-list P',
        ' exit',
        'interface eth0',
        ' no ip ospf cost 50',
        ' exit',
        'router bgp 65001',
        ' no neighbor 10.0.1.9 remote-as 65009',
        ' neighbor 10.0.1.2 remote-as 65002',
        ' exit',
        'no router ospf',
      ],
    ],
  ])('%s', (_name, current, plan) => {
    expect(planText(restorePlan(BASE, current))).toEqual(plan);
  });

  it('parses indentation blocks and drops the noise of the dump (banners, `!`, `exit`, version)', () => {
    const current = now(insertAfter(' ip address 10.0.1.1/24', ' ip ospf cost 50'));
    expect(parseConfig(current).map((n) => n.line)).toEqual([
      'hostname r1',
      'no ipv6 forwarding',
      'interface eth0',
      'router bgp 65001',
      'route-map RM permit 10',
    ]);
    expect(parseConfig(current)[2]!.children.map((c) => c.line)).toEqual([
      'description uplink to r2',
      'ip address 10.0.1.1/24',
      'ip ospf cost 50',
    ]);
  });

  it('uses the platform negation word (Huawei undo)', () => {
    expect(
      planText(
        restorePlan(
          'sysname R1\n#\ninterface GE0/0/1\n ip address 10.0.0.1 24\n#\nreturn',
          'sysname R1\n#\ninterface GE0/0/1\n ip address 10.0.0.1 24\n ospf cost 5\n#\nreturn',
          { no: 'undo' },
        ),
      ),
    ).toEqual(['interface GE0/0/1', ' undo ospf cost 5', ' exit']);
    expect(negate('undo shutdown', 'undo')).toBe('shutdown');
    expect(negate('  no shutdown')).toBe('shutdown');
  });
});

describe('unifiedDiff', () => {
  it('prints hunks with context, empty for equal texts', () => {
    expect(unifiedDiff('a\nb', 'a\nb', { from: 'x', to: 'y' })).toBe('');
    expect(
      unifiedDiff('hostname r1\n!\nend', 'hostname r1\n!\nrouter ospf\n network 10.0.0.0/16 area 0\nexit\n!\nend', {
        from: 'r1 before request 1',
        to: 'r1 now',
      }),
    ).toBe(
      [
        '--- r1 before request 1',
        '+++ r1 now',
        '@@ -1,3 +1,7 @@',
        ' hostname r1',
        ' !',
        '+router ospf',
        '+ network 10.0.0.0/16 area 0',
        '+exit',
        '+!',
        ' end',
      ].join('\n'),
    );
  });

  it('every line of both texts is kept, in order (random texts)', () => {
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let t = 0; t < 300; t++) {
      const a = Array.from({ length: Math.floor(rnd() * 12) }, () => 'abcd'[Math.floor(rnd() * 4)]!);
      const b = Array.from({ length: Math.floor(rnd() * 12) }, () => 'abcd'[Math.floor(rnd() * 4)]!);
      const e = diffLines(a, b);
      expect(e.filter((x) => x.op !== '+').map((x) => x.line)).toEqual(a);
      expect(e.filter((x) => x.op !== '-').map((x) => x.line)).toEqual(b);
    }
  });
});

/**
 * The check parsers on output recorded from platforms the lab does not run (IOS,
 * FRR with bgpd, Linux hosts), and the check-file loader's errors (line + field).
 */
import { describe, expect, it } from 'vitest';
import {
  parseBgpSummary,
  parseIosInterfaceBrief,
  parseIosPing,
  parseIosRoutes,
  parseLinuxInterfaces,
  parseLinuxRoutes,
} from '../../src/check/parse.js';
import { planCheck } from '../../src/check/plan.js';
import { parseCheckText } from '../../src/check/load.js';
import type { CommandResult } from '../../src/devices/types.js';

const IOS_ROUTES = `Codes: L - local, C - connected, S - static, R - RIP, M - mobile, B - BGP
       O - OSPF, IA - OSPF inter area

Gateway of last resort is not set

      10.0.0.0/8 is variably subnetted, 4 subnets, 2 masks
C        10.0.12.0/24 is directly connected, GigabitEthernet0/0
L        10.0.12.1/32 is directly connected, GigabitEthernet0/0
O        10.0.23.0/24 [110/2] via 10.0.12.2, 00:00:05, GigabitEthernet0/0
O IA     10.0.34.0/24 [110/3] via 10.0.12.2, 00:00:05, GigabitEthernet0/0
      172.16.0.0/24 is subnetted, 1 subnets
B        172.16.1.0 [20/0] via 10.0.12.2, 00:01:00
`;

const BGP = `BGP router identifier 10.255.255.1, local AS number 65001 vrf-id 0
Neighbor        V         AS   MsgRcvd   MsgSent   TblVer  InQ OutQ  Up/Down State/PfxRcd   PfxSnt Desc
10.0.12.2       4      65002        12        11        0    0    0 00:05:12            3        4 N/A
10.0.13.3       4      65003         0         0        0    0    0    never       Active        0 N/A
`;

describe('check parsers', () => {
  it('reads IOS routes, with classful "is subnetted" headers giving the length', () => {
    const rows = parseIosRoutes(IOS_ROUTES)!;
    expect(rows.map((r) => [r.prefix, r.protocol, r.via])).toEqual([
      ['10.0.12.0/24', 'connected', []],
      ['10.0.12.1/32', 'local', []],
      ['10.0.23.0/24', 'ospf', ['10.0.12.2']],
      ['10.0.34.0/24', 'ospf', ['10.0.12.2']],
      ['172.16.1.0/24', 'bgp', ['10.0.12.2']],
    ]);
    expect(rows.every((r) => r.selected)).toBe(true);
  });

  it('reads a BGP summary: a prefix count means Established; no summary at all is undecidable', () => {
    expect(parseBgpSummary(BGP)!.map((r) => [r.peer, r.state])).toEqual([
      ['10.0.12.2', 'Established'],
      ['10.0.13.3', 'Active'],
    ]);
    expect(parseBgpSummary('bgpd is not running')).toBeUndefined();
  });

  it('reads IOS interface briefs, IOS ping and Linux ip output', () => {
    const ios = parseIosInterfaceBrief(
      'Interface              IP-Address      OK? Method Status                Protocol\nGigabitEthernet0/0     10.0.12.1       YES manual up                    up\nGigabitEthernet0/1     unassigned      YES unset  administratively down down\n',
    )!;
    expect(ios.map((r) => [r.name, r.state, r.addresses])).toEqual([
      ['GigabitEthernet0/0', 'up', ['10.0.12.1']],
      ['GigabitEthernet0/1', 'administratively down', []],
    ]);
    expect(
      parseIosPing('Sending 3, 100-byte ICMP Echos to 10.0.23.3\n!!.\nSuccess rate is 66 percent (2/3), round-trip min/avg/max = 1/1/2 ms'),
    ).toEqual({
      sent: 3,
      received: 2,
      line: 'Success rate is 66 percent (2/3), round-trip min/avg/max = 1/1/2 ms',
    });
    const linux = parseLinuxInterfaces(
      '1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT\n2: eth0@if7: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue state UP mode DEFAULT\n3: eth1: <BROADCAST,MULTICAST> mtu 1500 qdisc noop state DOWN mode DEFAULT',
      '1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever\n2: eth0    inet 192.168.1.10/24 brd 192.168.1.255 scope global eth0\\       valid_lft forever',
    )!;
    expect(linux.map((r) => [r.name, r.state, r.addresses])).toEqual([
      ['lo', 'up', ['127.0.0.1/8']],
      ['eth0', 'up', ['192.168.1.10/24']],
      ['eth1', 'down', []],
    ]);
    expect(
      parseLinuxRoutes('default via 192.168.1.1 dev eth0\n192.168.1.0/24 dev eth0 proto kernel scope link src 192.168.1.10').map((r) => [
        r.prefix,
        r.protocol,
        r.via,
      ]),
    ).toEqual([
      ['0.0.0.0/0', 'static', ['192.168.1.1']],
      ['192.168.1.0/24', 'connected', []],
    ]);
  });

  it('decides an IOS route check from the output, and a failed command is an error with its reason', () => {
    const plan = planCheck(
      parseCheckText('checks:\n  - route: {device: R1, prefix: 10.0.23.0/24, via: 10.0.12.2, protocol: ospf}\n', 'x').checks[0]!,
      'cisco_ios',
    );
    if ('error' in plan) throw new Error(plan.error);
    const ok: CommandResult = { command: 'show ip route', status: 'success', output: IOS_ROUTES, duration_ms: 1 };
    expect(plan.decide(() => ok)).toEqual({
      status: 'pass',
      evidence: 'O        10.0.23.0/24 [110/2] via 10.0.12.2, 00:00:05, GigabitEthernet0/0',
    });
    const timeout: CommandResult = {
      command: 'show ip route',
      status: 'timeout',
      output: '',
      error: 'no prompt after 20000 ms',
      duration_ms: 1,
    };
    expect(plan.decide(() => timeout)).toEqual({ status: 'error', evidence: '"show ip route": no prompt after 20000 ms' });
  });
});

describe('check file errors name the line and the field', () => {
  const bad = (text: string) => {
    try {
      parseCheckText(text, 'f.yaml');
    } catch (err) {
      return (err as Error & { exitCode: number }).message + ` (exit ${(err as { exitCode: number }).exitCode})`;
    }
    return 'parsed';
  };
  it.each([
    [
      'checks:\n  - node: {name: R1}\n  - ospf_neighbor: {device: R1, neighbour: 1.1.1.1}\n',
      /^f\.yaml:3: checks\[1\]\.ospf_neighbor(\.neighbor)?: .*\(exit 2\)$/,
    ],
    [
      'checks:\n  - ping: {from: PC1, to: 10.0.0.300x}\n',
      /^f\.yaml:2: checks\[0\]\.ping\.to: an IPv4 address like 10\.0\.0\.1 \(exit 2\)$/,
    ],
    [
      'checks:\n  - route: {device: R1, prefix: 10.0.0.0/8}\n    interface: {device: R1, name: e0}\n',
      /^f\.yaml:2: checks\[0\]: one kind per check \(found interface, route\) \(exit 2\)$/,
    ],
    [
      'checks:\n  - command: {device: R1, run: x, expect: {regex: "("}}\n',
      /^f\.yaml:2: checks\[0\]\.command\.expect\.regex: not a valid regular expression \(exit 2\)$/,
    ],
    [
      // a second line hidden in one command would reach the device as a command of its own
      'checks:\n  - command: {device: R1, run: "show version\\nconfigure terminal", expect: {contains: x}}\n',
      /^f\.yaml:2: checks\[0\]\.command\.run: one command on one line, without control characters \(exit 2\)$/,
    ],
    ['checks: [\n', /^f\.yaml:\d+: .*\(exit 2\)$/],
    ['project: x\n', /^f\.yaml:1: checks: a non-empty list of checks \(exit 2\)$/],
  ])('%s', (text, want) => {
    expect(bad(text)).toMatch(want);
  });
});

/**
 * What `check --init` writes for VPCS PCs, and the evidence of a failed `contains`, on
 * `show ip` output as VPCS prints it: the address check per PC, the pings between PCs that
 * share a link (through switches and hubs) and a network, and the nearest line shown when
 * the expected text is not there. The real lab runs them in check-init-vpcs-lab.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { parseVpcsShowIp } from '../../src/check/parse.js';
import { nearestLine, nearness } from '../../src/check/nearest-line.js';
import { pcPings, sameNetwork, vpcsAddressCheck } from '../../src/check/init-vpcs.js';
import { planCheck } from '../../src/check/plan.js';
import { parseCheckText } from '../../src/check/load.js';
import type { Topology } from '../../src/gns3/types.js';
import { topologyNode } from '../helpers/topology.js';

const SHOW_IP = (ip: string) => `
NAME        : PC1[1]
IP/MASK     : ${ip}
GATEWAY     : 192.168.1.1
DNS         : 
MAC         : 00:50:79:66:68:00
LPORT       : 20000
RHOST:PORT  : 127.0.0.1:20001
MTU         : 1500
`;

describe('VPCS addresses', () => {
  it('reads the address and its IP/MASK line; a PC without one has none', () => {
    expect(parseVpcsShowIp(SHOW_IP('192.168.1.10/24'))).toEqual({ address: '192.168.1.10/24', line: 'IP/MASK     : 192.168.1.10/24' });
    expect(parseVpcsShowIp(SHOW_IP('0.0.0.0/0'))).toBeUndefined();
    expect(parseVpcsShowIp('')).toBeUndefined();
    expect(vpcsAddressCheck('PC1', SHOW_IP('192.168.1.10/24'))).toEqual({
      address: '192.168.1.10/24',
      check: {
        name: 'PC1 has 192.168.1.10/24',
        command: { device: 'PC1', run: 'show ip', expect: { contains: 'IP/MASK     : 192.168.1.10/24' } },
      },
    });
    expect(vpcsAddressCheck('PC1', undefined)).toBeUndefined();
    expect(vpcsAddressCheck('PC1', SHOW_IP('0.0.0.0/0'))).toBeUndefined();
  });

  it('knows when two addresses share a network', () => {
    expect(sameNetwork('192.168.1.10/24', '192.168.1.11/24')).toBe(true);
    expect(sameNetwork('192.168.1.10/24', '192.168.2.10/24')).toBe(false);
    expect(sameNetwork('10.0.0.1/8', '10.200.3.4/8')).toBe(true);
    expect(sameNetwork('192.168.1.10/24', '192.168.1.11/25')).toBe(false); // another prefix length: not one network
    expect(sameNetwork('192.168.1.1/25', '192.168.1.129/25')).toBe(false);
  });
});

const end = (node: string, port: string) => ({ node_id: node, node_name: node, adapter_number: 0, port_number: 0, port_name: port });
const link = (a: string, b: string) => ({
  link_id: `${a}-${b}`,
  link_type: 'ethernet',
  ends: [end(a.split(':')[0]!, a.split(':')[1]!), end(b.split(':')[0]!, b.split(':')[1]!)],
  filters: {},
  suspend: false,
  capturing: false,
});
/** PC1, PC2 behind SW1 (and PC4 behind SW2 behind SW1), PC3 on R1 with PC1's network, PC5 on SW1 in another network. */
const LAB: Topology = {
  project_id: 'p',
  project_name: 'lab',
  nodes: [
    topologyNode('PC1', { node_type: 'vpcs' }),
    topologyNode('PC2', { node_type: 'vpcs' }),
    topologyNode('PC3', { node_type: 'vpcs' }),
    topologyNode('PC4', { node_type: 'vpcs' }),
    topologyNode('PC5', { node_type: 'vpcs' }),
    topologyNode('SW1', { node_type: 'ethernet_switch' }),
    topologyNode('SW2', { node_type: 'ethernet_hub' }),
    topologyNode('R1'),
  ],
  links: [
    link('PC1:e0', 'SW1:e0'),
    link('SW1:e1', 'PC2:e0'),
    link('SW1:e2', 'SW2:e0'),
    link('SW2:e1', 'PC4:e0'),
    link('SW1:e3', 'R1:e0'),
    link('R1:e1', 'PC3:e0'),
    link('SW1:e4', 'PC5:e0'),
  ],
};

describe('pings between PCs', () => {
  it('one per pair linked through switches and hubs in one network, never through a router, from the first in project order', () => {
    const addresses = new Map([
      ['PC1', '192.168.1.10/24'],
      ['PC2', '192.168.1.11/24'],
      ['PC3', '192.168.1.12/24'], // behind R1: not on PC1's link, though the network matches
      ['PC4', '192.168.1.13/24'],
      ['PC5', '10.1.1.5/24'], // on SW1 in another network
    ]);
    expect(pcPings(LAB, addresses)).toEqual([
      { ping: { from: 'PC1', to: '192.168.1.11' } },
      { ping: { from: 'PC1', to: '192.168.1.13' } },
      { ping: { from: 'PC2', to: '192.168.1.13' } },
    ]);
  });

  it('none for a PC without an address', () => {
    expect(pcPings(LAB, new Map([['PC1', '192.168.1.10/24']]))).toEqual([]);
    expect(pcPings(LAB, new Map())).toEqual([]);
  });

  it('two PCs cabled to each other are linked', () => {
    const direct: Topology = { ...LAB, links: [link('PC1:e0', 'PC2:e0')] };
    expect(
      pcPings(
        direct,
        new Map([
          ['PC1', '10.0.0.1/30'],
          ['PC2', '10.0.0.2/30'],
        ]),
      ),
    ).toEqual([{ ping: { from: 'PC1', to: '10.0.0.2' } }]);
  });
});

describe('the evidence of a failed contains is the line where the text was expected', () => {
  it('shows the nearest line, not the first', () => {
    const file = parseCheckText(
      'checks:\n  - command: {device: PC1, run: show ip, expect: {contains: "IP/MASK     : 192.168.1.10/24"}}\n',
      'x',
    );
    const plan = planCheck(file.checks[0]!, 'vpcs');
    if ('error' in plan) throw new Error(plan.error);
    const run = (output: string) => plan.decide(() => ({ command: 'show ip', status: 'success', output, duration_ms: 1 }));
    expect(run(SHOW_IP('192.168.1.99/24'))).toEqual({
      status: 'fail',
      evidence: '"IP/MASK     : 192.168.1.10/24" not in the output (nearest: IP/MASK     : 192.168.1.99/24)',
    });
    expect(run(SHOW_IP('192.168.1.10/24'))).toEqual({ status: 'pass', evidence: 'IP/MASK     : 192.168.1.10/24' });
  });

  it('nearness: the same text whitespace and case aside is 1, nothing in common 0; the first of equally near lines', () => {
    expect(nearness('IP/MASK : 10.0.0.1/24', 'ip/mask   :  10.0.0.1/24')).toBe(1);
    expect(nearness('abc', 'xyz')).toBe(0);
    expect(nearness('', '')).toBe(0);
    expect(nearness('a', 'a')).toBe(0); // no character pairs to compare
    expect(nearness('abcd', 'abxy')).toBeCloseTo(1 / 3);
    expect(nearestLine(['  first  ', 'other'], 'first')).toBe('first');
    expect(nearestLine(['ab one', 'ab two'], 'ab')).toBe('ab one');
    expect(nearestLine(['xyz', '   '], 'abc')).toBeUndefined();
    expect(nearestLine([], 'abc')).toBeUndefined();
  });
});

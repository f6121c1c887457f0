/**
 * Operational state compared before and after a change (src/check/state.ts): what of the
 * baseline is missing or worse is a regression, what the change's own lines name is intended,
 * and the devices linked to the touched ones are read beside them.
 */
import { describe, expect, it } from 'vitest';
import { intendedBy, linkedNeighbours, regressionsOf, routingMoved, sameStates, type DeviceState } from '../../src/check/state.js';
import type { Topology } from '../../src/gns3/types.js';

const state = (over: Partial<DeviceState> = {}): DeviceState => ({
  device: 'R2',
  interfaces: { eth0: { state: 'up', addresses: ['10.0.1.2/24'] }, eth1: { state: 'up', addresses: ['10.0.2.1/24'] } },
  ospf: { '10.255.255.1': 'Full', '10.255.255.3': 'Full' },
  bgp: { '10.0.9.1': 'Established' },
  routes: { '10.0.1.0/24': 'connected', '10.255.255.1/32': 'ospf' },
  ...over,
});

describe('regressions against a baseline', () => {
  it('finds nothing when nothing got worse, and new things are not regressions', () => {
    const after = state({ ospf: { '10.255.255.1': 'Full', '10.255.255.3': 'Full', '10.255.255.9': 'Init' } });
    expect(regressionsOf(state(), after)).toEqual([]);
    expect(sameStates([state()], [state()])).toBe(true);
    expect(sameStates([state()], [after])).toBe(false);
  });

  it('routing moved: an interface, an adjacency or a session differs; a route alone is what follows, not a move', () => {
    expect(routingMoved([state()], [state()])).toBe(false);
    expect(routingMoved([state()], [state({ routes: {} })])).toBe(false);
    expect(routingMoved([state()], [state({ ospf: { '10.255.255.1': 'Full' } })])).toBe(true);
    expect(routingMoved([state()], [state({ bgp: {} })])).toBe(true);
    expect(routingMoved([state()], [state({ interfaces: { eth0: { state: 'down', addresses: ['10.0.1.2/24'] } } })])).toBe(true);
    expect(routingMoved([state(), state()], [state()])).toBe(true);
  });

  it('names every kind: interface down, address lost, neighbour not Full, peer not Established, route gone', () => {
    const after = state({
      interfaces: { eth0: { state: 'administratively down', addresses: ['10.0.1.2/24'] }, eth1: { state: 'up', addresses: [] } },
      ospf: { '10.255.255.3': 'Init' },
      bgp: { '10.0.9.1': 'Active' },
      routes: { '10.0.1.0/24': 'connected' },
    });
    expect(regressionsOf(state(), after)).toEqual([
      { device: 'R2', kind: 'interface', what: 'eth0', before: 'up 10.0.1.2/24', after: 'administratively down 10.0.1.2/24' },
      { device: 'R2', kind: 'address', what: 'eth1 10.0.2.1/24', before: 'up 10.0.2.1/24', after: 'up' },
      { device: 'R2', kind: 'ospf_neighbor', what: '10.255.255.1', before: 'Full', after: 'absent' },
      { device: 'R2', kind: 'ospf_neighbor', what: '10.255.255.3', before: 'Full', after: 'Init' },
      { device: 'R2', kind: 'bgp_peer', what: '10.0.9.1', before: 'Established', after: 'Active' },
      { device: 'R2', kind: 'route', what: '10.255.255.1/32', before: 'ospf', after: 'absent' },
    ]);
  });

  it('counts as intended what the change names: the interface it configures, a prefix or neighbour it removes', () => {
    const down = { device: 'R2', kind: 'interface' as const, what: 'eth0', before: 'up', after: 'down' };
    expect(intendedBy(down, ['interface eth0', ' shutdown'])).toBe(true);
    expect(intendedBy(down, ['interface eth1', ' shutdown'])).toBe(false);
    expect(intendedBy(down, undefined)).toBe(false);
    const route = { device: 'R2', kind: 'route' as const, what: '10.0.5.0/24', before: 'ospf', after: 'absent' };
    expect(intendedBy(route, ['router ospf', ' no network 10.0.5.0/24 area 0'])).toBe(true);
    expect(intendedBy(route, ['router ospf', ' network 10.0.5.0/24 area 0'])).toBe(false);
    // a neighbour lost because an interface went down is not named by the change: a regression
    const nbr = { device: 'R1', kind: 'ospf_neighbor' as const, what: '10.255.255.2', before: 'Full', after: 'absent' };
    expect(intendedBy(nbr, ['interface eth0', ' shutdown'])).toBe(false);
  });
});

describe('linked neighbours', () => {
  it('are the devices one link away from the touched ones, each once, not the touched ones', () => {
    const end = (node_name: string) => ({ node_id: node_name, node_name, adapter_number: 0, port_number: 0, port_name: 'e0' });
    const link = (link_id: string, a: string, b: string) => ({
      link_id,
      link_type: 'ethernet',
      ends: [end(a), end(b)],
      filters: {},
      suspend: false,
      capturing: false,
    });
    const topology: Topology = {
      project_id: 'p',
      project_name: 'p',
      nodes: [],
      links: [link('a', 'R1', 'R2'), link('b', 'R2', 'R3'), link('c', 'R3', 'R4'), link('d', 'R1', 'PC1')],
    };
    expect(linkedNeighbours(topology, ['R2'])).toEqual(['R1', 'R3']);
    expect(linkedNeighbours(topology, ['r1', 'R2'])).toEqual(['R3', 'PC1']);
  });
});

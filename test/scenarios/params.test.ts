/**
 * A scenario's parameters from a device's facts without an LLM: the running configuration
 * (the restore lines are the healthy state), the interfaces and neighbours, made-up values
 * where any unused one will do, and `--set`; a parameter nothing gives is named with why.
 * On the built-in library, with real FRR 8.4 and IOS 15 outputs.
 */
import { describe, expect, it } from 'vitest';
import { SkillStore } from '../../src/skills/loader.js';
import { builtinSkillsDir } from '../../src/skills/paths.js';
import { resolveParameters, neededParameters } from '../../src/scenarios/params.js';
import { matchConfig } from '../../src/scenarios/config-match.js';
import { FRR_R1, IOS_R9, facts } from './fixtures.js';

const lib = new SkillStore([builtinSkillsDir()]).load();
const scenario = (id: string) => lib.injection.get(id)!;
const r1 = facts('R1', 'frr', FRR_R1);
const r9 = facts('R9', 'cisco_ios', IOS_R9);

const resolve = (id: string, f = r1, set: Record<string, string> = {}) =>
  resolveParameters({ scenario: scenario(id), platform: f.platform!, facts: f, set });

describe('parameters of FRR scenarios on the test lab R1', () => {
  it('an interface facing an OSPF neighbour, and the lines filled with it', () => {
    expect(resolve('ospf_hello_interval_mismatch')).toEqual({
      ok: true,
      values: { interface: 'eth0' },
      lines: ['interface eth0', 'ip ospf hello-interval 25'],
    });
    // only eth1 faces a neighbour: eth1, never the loopback
    const onlyEth1 = { ...r1, ospfNeighbors: r1.ospfNeighbors.filter((n) => n.address === '10.0.3.2') };
    expect(resolve('ospf_hello_interval_mismatch', onlyEth1)).toMatchObject({ ok: true, values: { interface: 'eth1' } });
  });

  it('values the running configuration holds: the OSPF network, the router id, the default gateway', () => {
    expect(resolve('ospf_area_mismatch')).toMatchObject({ ok: true, values: { network: '10.0.0.0/16' } });
    expect(resolve('ospf_router_id_duplicate')).toMatchObject({
      ok: true,
      values: { router_id: '10.255.255.1', duplicate_router_id: '10.255.255.2' },
      lines: ['router ospf', 'ospf router-id 10.255.255.2'],
    });
    expect(resolve('default_route_removed')).toMatchObject({ ok: true, values: { gateway: '10.0.3.2' } });
  });

  it('made-up values where the scenario wants something unused, derived from the real ones', () => {
    expect(resolve('ip_address_wrong_subnet')).toMatchObject({
      ok: true,
      values: { interface: 'eth0', address: '10.0.1.1/24', wrong_address: '192.0.2.1/24' },
    });
    // the upper half of the first learned prefix
    expect(resolve('static_blackhole_more_specific')).toMatchObject({ ok: true, values: { host_prefix: '10.0.2.128/25' } });
    expect(resolve('duplicate_host_route')).toMatchObject({ ok: true, values: { loopback: 'lo', peer_ip: '10.0.1.2' } });
  });

  it('--set wins, and fills what nothing on the device gives', () => {
    expect(resolve('ospf_hello_interval_mismatch', r1, { interface: 'eth1' })).toMatchObject({ ok: true, values: { interface: 'eth1' } });
    const missing = resolve('static_route_wrong_next_hop');
    expect(missing).toEqual({
      ok: false,
      parameter: 'wrong_next_hop',
      why: 'no value for wrong_next_hop (a wrong but reachable next hop): nothing on R1 gives it; set it with --set wrong_next_hop=VALUE',
    });
    expect(resolve('static_route_wrong_next_hop', r1, { wrong_next_hop: '10.0.1.3' })).toMatchObject({
      ok: true,
      values: { prefix: '0.0.0.0/0', next_hop: '10.0.3.2', wrong_next_hop: '10.0.1.3' },
    });
    // a value that contradicts the configuration leaves nothing to match
    expect(resolve('static_route_wrong_next_hop', r1, { wrong_next_hop: '10.0.1.3', prefix: '192.168.100.0/24' })).toMatchObject({
      ok: true,
      values: { prefix: '192.168.100.0/24', next_hop: '10.0.1.2' },
    });
  });

  it('a parameter the running configuration lacks is named with the line it looked for', () => {
    expect(resolve('bgp_neighbor_shutdown')).toEqual({
      ok: false,
      parameter: 'local_as',
      why: `no value for local_as (this router's AS): R1's running configuration has no "router bgp {{local_as}}"; set it with --set local_as=VALUE`,
    });
    const unread = { ...r1, interfaces: [], ospfNeighbors: [], config: undefined, error: 'connection refused' };
    expect(resolve('interface_shutdown', unread)).toMatchObject({
      ok: false,
      parameter: 'interface',
      why: expect.stringContaining('could not be read (connection refused)'),
    });
  });

  it('needs only the parameters the platform uses', () => {
    expect(neededParameters(scenario('ospf_passive_interface'), 'frr')).toEqual(['interface']);
    expect(neededParameters(scenario('ospf_passive_interface'), 'cisco_ios')).toEqual(['ospf_process_id', 'interface']);
  });
});

describe('parameters of IOS scenarios', () => {
  it('IOS addresses, prefixes and networks are two dotted quads', () => {
    expect(r9.interfaces.find((i) => i.name === 'GigabitEthernet0/0')?.addresses).toEqual(['10.0.12.1/24']);
    expect(resolve('ip_address_removed', r9)).toMatchObject({
      ok: true,
      values: { interface: 'GigabitEthernet0/0', address: '10.0.12.1 255.255.255.0' },
    });
    expect(resolve('static_route_removed', r9)).toMatchObject({
      ok: true,
      values: { prefix: '172.16.0.0 255.255.0.0', next_hop: '10.0.12.2' },
    });
    expect(resolve('eigrp_as_mismatch', r9)).toMatchObject({ ok: true, values: { as: '100', network: '10.0.12.0 0.0.0.255' } });
  });

  it('BGP from the configuration, an AS from the documentation range for the wrong one', () => {
    expect(resolve('bgp_remote_as_mismatch', r9)).toMatchObject({
      ok: true,
      values: { local_as: '65001', neighbor: '10.0.12.2', remote_as: '65002', wrong_as: '64496' },
      lines: ['router bgp 65001', 'neighbor 10.0.12.2 remote-as 64496'],
    });
  });

  it('the process id and the access port come with the lines that hold them', () => {
    expect(resolve('ospf_passive_interface', r9)).toMatchObject({
      ok: true,
      values: { ospf_process_id: '7', interface: 'GigabitEthernet0/0' },
    });
    expect(resolve('access_port_wrong_vlan', r9)).toMatchObject({
      ok: true,
      values: { interface: 'GigabitEthernet0/1', vlan: '10', wrong_vlan: '999' },
    });
  });
});

describe('matchConfig', () => {
  it('matches nested lines at any depth and skips negations and mode lines', () => {
    const cfg =
      'router bgp 65001\n neighbor 10.0.12.2 remote-as 65002\n !\n address-family ipv4 unicast\n  network 1.1.1.1/32\n exit-address-family\nexit\n';
    expect(
      matchConfig(['router bgp {{local_as}}', 'address-family ipv4 unicast', 'network {{prefix}}', 'exit-address-family'], cfg, 'frr'),
    ).toEqual({
      ok: true,
      candidates: [{ local_as: '65001', prefix: '1.1.1.1/32' }],
    });
    expect(matchConfig(['no router eigrp 999', 'router eigrp {{as}}', 'network {{network}}'], cfg, 'cisco_ios')).toEqual({
      ok: false,
      line: 'router eigrp {{as}} / network {{network}}',
    });
  });

  it('every block that matches is a candidate, in configuration order; known values narrow them', () => {
    const cfg = 'interface eth0\n shutdown\ninterface eth1\n description x\n';
    expect(matchConfig(['interface {{interface}}', 'no shutdown'], cfg, 'frr')).toEqual({
      ok: true,
      candidates: [{ interface: 'eth0' }, { interface: 'eth1' }],
    });
    expect(matchConfig(['interface {{interface}}'], cfg, 'frr', { interface: 'ETH1' })).toEqual({
      ok: true,
      candidates: [{ interface: 'eth1' }],
    });
  });
});

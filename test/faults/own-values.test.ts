/**
 * A fault's restore puts back the device's own values (src/faults/own-values.ts,
 * src/faults/own-restore.ts): the lines of the running configuration the fault's lines
 * override or remove, in their sections, after the scenario's restore; nothing when the
 * device had the default; the reason when the configuration could not be read.
 */
import { describe, expect, it } from 'vitest';
import { ownValueLines } from '../../src/faults/own-values.js';
import { withOwnValues } from '../../src/faults/own-restore.js';
import type { Fault, RestoreCall } from '../../src/faults/store.js';
import { formatShow } from '../../src/faults/report.js';

const FRR = `Building configuration...

Current configuration:
!
frr version 8.4
hostname R1
!
interface eth0
 ip address 10.0.12.1/24
 ip ospf dead-interval 4
 ip ospf hello-interval 1
exit
!
interface eth1
 ip address 10.0.13.1/24
exit
!
router bgp 65001
 neighbor 10.0.12.2 remote-as 65002
 neighbor 10.0.12.2 password s3cret
 neighbor 10.0.12.2 ebgp-multihop 5
 !
 address-family ipv4 unicast
  network 10.1.0.0/24
 exit-address-family
exit
!
router ospf
 network 10.0.12.0/24 area 0
exit
!
end
`;

const helloInject = ['interface eth0', 'ip ospf hello-interval 25'];
const helloRestore = ['interface eth0', 'no ip ospf hello-interval'];
const restoreCall = (lines: string[]): RestoreCall => ({
  tool: 'execute_multiple_device_config_commands',
  args: { device_configs: [{ device_name: 'R1', config_commands: lines }] },
});

describe('ownValueLines', () => {
  it("keeps the interface's own hello interval, in its section, and nothing else of it", () => {
    expect(ownValueLines(helloInject, helloRestore, FRR)).toEqual(['interface eth0', 'ip ospf hello-interval 1', 'exit']);
    expect(ownValueLines(['interface eth0', 'ip ospf dead-interval 15'], ['interface eth0', 'no ip ospf dead-interval'], FRR)).toEqual([
      'interface eth0',
      'ip ospf dead-interval 4',
      'exit',
    ]);
  });

  it('keeps nothing when the device had the default (the scenario restore is the right one)', () => {
    expect(ownValueLines(['interface eth1', 'ip ospf hello-interval 25'], ['interface eth1', 'no ip ospf hello-interval'], FRR)).toEqual(
      [],
    );
    expect(ownValueLines(['interface eth1', 'ip ospf cost 1000'], ['interface eth1', 'no ip ospf cost'], FRR)).toEqual([]);
  });

  it('keeps what a `no` line removes and what a value overrides, never what the restore puts back already', () => {
    // the password the restore's `no neighbor … password` would leave unset
    expect(
      ownValueLines(
        ['router bgp 65001', 'neighbor 10.0.12.2 password LABFAULT'],
        ['router bgp 65001', 'no neighbor 10.0.12.2 password'],
        FRR,
      ),
    ).toEqual(['router bgp 65001', 'neighbor 10.0.12.2 password s3cret', 'exit']);
    // the device's multihop, not the scenario's 2
    expect(
      ownValueLines(
        ['router bgp 65001', 'no neighbor 10.0.12.2 ebgp-multihop'],
        ['router bgp 65001', 'neighbor 10.0.12.2 ebgp-multihop 2'],
        FRR,
      ),
    ).toEqual(['router bgp 65001', 'neighbor 10.0.12.2 ebgp-multihop 5', 'exit']);
    // the removed network is the restore's own line: nothing to add
    expect(
      ownValueLines(
        ['router bgp 65001', 'address-family ipv4 unicast', 'no network 10.1.0.0/24', 'exit-address-family'],
        ['router bgp 65001', 'address-family ipv4 unicast', 'network 10.1.0.0/24', 'exit-address-family'],
        FRR,
      ),
    ).toEqual([]);
  });

  it('never takes a keyword for a value: an IOS passive-interface default, a BGP neighbour flag', () => {
    const ios = 'router ospf 1\n passive-interface default\n no passive-interface Gi0/1\n!\n';
    expect(ownValueLines(['router ospf 1', 'passive-interface Gi0/0'], ['router ospf 1', 'no passive-interface Gi0/0'], ios)).toEqual([]);
    const bgp = 'router bgp 1\n neighbor 10.0.0.2 remote-as 2\n neighbor 10.0.0.2 activate\n';
    expect(ownValueLines(['router bgp 1', 'neighbor 10.0.0.2 shutdown'], ['router bgp 1', 'no neighbor 10.0.0.2 shutdown'], bgp)).toEqual(
      [],
    );
    // a neighbour shut down already stays so: the restore's `no` would have opened it
    expect(
      ownValueLines(
        ['router bgp 1', 'neighbor 10.0.0.2 shutdown'],
        ['router bgp 1', 'no neighbor 10.0.0.2 shutdown'],
        `${bgp} neighbor 10.0.0.2 shutdown\n`,
      ),
    ).toEqual(['router bgp 1', 'neighbor 10.0.0.2 shutdown', 'exit']);
  });

  it('compares lines in the same section only', () => {
    // eth1 has no own hello interval although eth0 has one
    expect(ownValueLines(['interface eth1', 'ip ospf hello-interval 25'], ['interface eth1', 'no ip ospf hello-interval'], FRR)).toEqual(
      [],
    );
  });

  it('nests a line of an address family under its heads', () => {
    const cfg = 'router bgp 1\n address-family ipv4 unicast\n  distance bgp 20 200 200\n exit-address-family\nexit\n';
    expect(
      ownValueLines(['router bgp 1', 'address-family ipv4 unicast', 'distance bgp 20 200 250'], ['router bgp 1', 'no distance bgp'], cfg),
    ).toEqual(['router bgp 1', 'address-family ipv4 unicast', 'distance bgp 20 200 200', 'exit-address-family', 'exit']);
  });
});

describe('withOwnValues', () => {
  it("appends the device's own lines to the scenario's restore and names them", () => {
    const r = withOwnValues(restoreCall(helloRestore), helloInject, { config: FRR });
    expect(r.args.device_configs).toEqual([
      { device_name: 'R1', config_commands: [...helloRestore, 'interface eth0', 'ip ospf hello-interval 1', 'exit'] },
    ]);
    expect(r.own_lines).toEqual(['interface eth0', 'ip ospf hello-interval 1', 'exit']);
    expect(r.own_unread).toBeUndefined();
  });

  it('leaves the default restore as it is when the device had no value of its own', () => {
    const r = withOwnValues(restoreCall(['interface eth1', 'no ip ospf hello-interval']), ['interface eth1', 'ip ospf hello-interval 25'], {
      config: FRR,
    });
    expect(r).toEqual(restoreCall(['interface eth1', 'no ip ospf hello-interval']));
  });

  it('says why when the configuration could not be read, and keeps the scenario restore', () => {
    const r = withOwnValues(restoreCall(helloRestore), helloInject, { error: 'cannot reach R1: connection refused' });
    expect(r.args).toEqual(restoreCall(helloRestore).args);
    expect(r.own_unread).toBe('cannot reach R1: connection refused');
  });
});

describe('faults show', () => {
  const fault = (restore: RestoreCall): Fault => ({
    id: 3,
    session_id: 'S1',
    project_id: 'P1',
    project_name: 'lab',
    call_id: null,
    target_kind: 'device',
    target: 'R1',
    scenario: 'ospf_hello_interval_mismatch',
    category: 'ospf',
    difficulty: 'medium',
    applied: helloInject,
    restore,
    repair_check: { config: { device: 'R1', section: 'interface eth0', lacks: 'ip ospf hello-interval 25' } },
    injected_at: '2026-01-01T00:00:00.000Z',
    fixed_at: null,
    restored_at: null,
    state: 'open',
  });

  it("names the device's own values the restore puts back, or why they could not be read", () => {
    const kept = formatShow(fault(withOwnValues(restoreCall(helloRestore), helloInject, { config: FRR })), []);
    expect(kept).toContain("  own values   interface eth0; ip ospf hello-interval 1; exit (put back after the scenario's restore)\n");
    const unread = formatShow(fault(withOwnValues(restoreCall(helloRestore), helloInject, { error: 'cannot reach R1: refused' })), []);
    expect(unread).toContain('  own values   not read: cannot reach R1: refused\n');
  });
});

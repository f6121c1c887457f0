/**
 * The operational differences between two reads of a device, as `diff --state` prints them:
 * every addition, loss and change among interfaces, OSPF neighbours, BGP peers and routes.
 */
import { describe, expect, it } from 'vitest';
import { diffState, stateDiffEmpty } from '../../src/check/state-diff.js';
import { stateDiffText } from '../../src/undo/state-diff-session.js';
import type { DeviceState } from '../../src/check/state.js';

const state = (over: Partial<DeviceState> = {}): DeviceState => ({
  device: 'R2',
  interfaces: { eth0: { state: 'up', addresses: ['10.0.1.2/24'] }, eth1: { state: 'up', addresses: ['10.0.2.1/24'] } },
  ospf: { '10.255.255.1': 'Full', '10.255.255.3': 'Full' },
  bgp: {},
  routes: { '10.0.1.0/24': 'connected', '10.255.255.3/32': 'ospf' },
  ...over,
});

describe('diffState', () => {
  it('the same state twice: no difference', () => {
    expect(stateDiffEmpty(diffState(state(), state()))).toBe(true);
  });

  it('an interface shut: its state changed, the neighbour behind it and its routes lost, a new route added', () => {
    const after = state({
      interfaces: { eth0: { state: 'up', addresses: ['10.0.1.2/24'] }, eth1: { state: 'down', addresses: ['10.0.2.1/24'] } },
      ospf: { '10.255.255.1': 'Full' },
      bgp: { '10.0.9.9': 'Active' },
      routes: { '10.0.1.0/24': 'connected', '10.9.0.0/16': 'static' },
    });
    expect(diffState(state(), after)).toEqual({
      device: 'R2',
      added: [
        { kind: 'bgp_peer', what: '10.0.9.9', after: 'Active' },
        { kind: 'route', what: '10.9.0.0/16', after: 'static' },
      ],
      lost: [
        { kind: 'ospf_neighbor', what: '10.255.255.3', before: 'Full' },
        { kind: 'route', what: '10.255.255.3/32', before: 'ospf' },
      ],
      changed: [{ kind: 'interface', what: 'eth1', before: 'up 10.0.2.1/24', after: 'down 10.0.2.1/24' }],
    });
  });

  it('a neighbour that is no longer Full is changed, an address added to an interface is changed', () => {
    const after = state({
      interfaces: { eth0: { state: 'up', addresses: ['10.0.1.2/24', '10.0.7.1/24'] }, eth1: { state: 'up', addresses: ['10.0.2.1/24'] } },
      ospf: { '10.255.255.1': 'Init', '10.255.255.3': 'Full' },
    });
    const d = diffState(state(), after);
    expect(d.added).toEqual([]);
    expect(d.lost).toEqual([]);
    expect(d.changed).toEqual([
      { kind: 'interface', what: 'eth0', before: 'up 10.0.1.2/24', after: 'up 10.0.1.2/24 10.0.7.1/24' },
      { kind: 'ospf_neighbor', what: '10.255.255.1', before: 'Full', after: 'Init' },
    ]);
  });
});

describe('stateDiffText', () => {
  it('says when no baseline is stored, and why a device could not be read now', () => {
    expect(stateDiffText({ to: 2, devices: [] })).toMatch(
      /^ {2}no baselines stored: no configuration change of this session was verified since then$/m,
    );
    const t = stateDiffText({
      to: 1,
      devices: [
        { device: 'R1', baseline_request: 1, status: 'unchanged', added: [], lost: [], changed: [] },
        { device: 'R2', baseline_request: 2, status: 'error', added: [], lost: [], changed: [], error: 'cannot reach R2: ECONNREFUSED' },
      ],
    });
    expect(t.split('\n')).toEqual([
      "Operational state since before request 1 (the baselines of the session's change verifications, against a fresh read):",
      '  R1 (baseline of request 1): unchanged',
      '  R2 (baseline of request 2): cannot read it now: cannot reach R2: ECONNREFUSED',
      '',
    ]);
  });
});

/** "Allow for this session" per tool and target: which calls an allowance covers, and the words of the choice. */
import { describe, expect, it } from 'vitest';
import { allowanceLabel, allowanceScope, SessionAllowances } from '../../src/tools/allowances.js';
import { targetsOf } from '../../src/tools/targets.js';

const CFG = 'execute_multiple_device_config_commands';
const VPCS = 'execute_vpcs_commands';
const cfg = (...devices: string[]) =>
  targetsOf(CFG, { device_configs: devices.map((device_name) => ({ device_name, config_commands: ['x'] })) });
const vpcs = (...devices: string[]) =>
  targetsOf(VPCS, { device_configs: devices.map((device_name) => ({ device_name, commands: ['x'] })) });

describe('SessionAllowances', () => {
  it('covers the tool on the devices allowed, whatever the commands, and nothing else', () => {
    const a = new SessionAllowances();
    a.allow(VPCS, vpcs('PC1'));
    expect(a.covers(VPCS, vpcs('PC1'))).toBe(true);
    expect(a.covers(VPCS, vpcs('PC2'))).toBe(false);
    expect(a.covers(VPCS, vpcs('PC1', 'PC2'))).toBe(false);
    expect(a.covers(CFG, cfg('PC1'))).toBe(false);
    // a call that names no device cannot be covered by a device allowance
    expect(a.covers(VPCS, vpcs())).toBe(false);
    a.allow(VPCS, vpcs('PC2', 'PC3'));
    expect(a.covers(VPCS, vpcs('PC1', 'PC3'))).toBe(true);
    expect(a.size).toBe(3);
    a.clear();
    expect(a.covers(VPCS, vpcs('PC1'))).toBe(false);
  });

  it('device names are matched exactly: a name differing in case is asked about again', () => {
    const a = new SessionAllowances();
    a.allow(VPCS, vpcs('PC1'));
    expect(a.covers(VPCS, vpcs('pc1'))).toBe(false);
  });

  it('a target without a name (a node created without one, a device the model left out) is never covered', () => {
    const a = new SessionAllowances();
    const create = (nodes: unknown[]) => targetsOf('create_gns3_node', { nodes });
    a.allow('create_gns3_node', create([{ template: 'VPCS', name: 'PC9' }, { template: 'VPCS' }]));
    expect(a.covers('create_gns3_node', create([{ template: 'VPCS', name: 'PC9' }]))).toBe(true);
    expect(a.covers('create_gns3_node', create([{ template: 'VPCS' }]))).toBe(false);
    expect(a.covers(CFG, targetsOf(CFG, { device_configs: [{ config_commands: ['x'] }] }))).toBe(false);
  });

  it('devices, nodes and links are different targets even with the same name', () => {
    const a = new SessionAllowances();
    a.allow('manage_gns3_packet_filter', targetsOf('manage_gns3_packet_filter', { action: 'set', link: 'R1' }));
    expect(a.covers('manage_gns3_packet_filter', targetsOf('manage_gns3_packet_filter', { action: 'clear', link: 'R1' }))).toBe(true);
    expect(allowanceScope({ devices: [{ name: 'R1', commands: [] }] })).toMatchObject({ keys: [expect.stringMatching(/^device/)] });
    expect(allowanceScope({ links: [{ a: 'R1' }] })).toMatchObject({ keys: [expect.stringMatching(/^link/)] });
  });

  it('a tool that declares no targets is allowed as a whole', () => {
    const a = new SessionAllowances();
    expect(a.covers('lab__wipe', undefined)).toBe(false);
    a.allow('lab__wipe', undefined);
    expect(a.covers('lab__wipe', undefined)).toBe(true);
    expect(a.covers('lab__other', undefined)).toBe(false);
  });
});

describe('allowanceLabel', () => {
  it('names the tool and the targets the answer will cover', () => {
    expect(allowanceLabel(VPCS, vpcs('PC1'))).toBe('allow execute_vpcs_commands on PC1 for this session');
    expect(allowanceLabel(VPCS, vpcs('PC1', 'PC2', 'PC3', 'PC4', 'PC5'))).toBe(
      'allow execute_vpcs_commands on PC1, PC2, PC3 and 2 more for this session',
    );
    expect(allowanceLabel('lab__wipe', undefined)).toBe('allow lab__wipe for this session');
  });
});

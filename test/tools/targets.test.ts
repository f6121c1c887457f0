/** What each built-in tool declares it touches (src/tools/targets.ts), and that every tool carries its declaration. */
import { describe, expect, it } from 'vitest';
import { allTools } from '../../src/tools/index.js';
import { TOOL_TARGETS, targetsOf } from '../../src/tools/targets.js';

describe('tool targets', () => {
  it.each([
    [
      'execute_multiple_device_commands',
      { device_configs: [{ device_name: 'R1', commands: ['show ip route'] }] },
      { devices: [{ name: 'R1', commands: ['show ip route'] }] },
    ],
    [
      'execute_multiple_device_config_commands',
      { device_configs: [{ device_name: 'R2', config_commands: ['router ospf'] }] },
      { devices: [{ name: 'R2', commands: ['router ospf'] }], changesConfig: true },
    ],
    ['execute_vpcs_commands', { device_configs: [{ device_name: 'PC1', commands: ['ip 10.0.0.2/24'] }] }, { changesConfig: true }],
    // a stop or suspend loses unsaved running configuration: checkpointed like a config change
    [
      'stop_gns3_node',
      { nodes: ['R1'] },
      { nodes: [{ name: 'R1' }], devices: [{ name: 'R1', commands: [] }], changesConfig: true, changesTopology: true },
    ],
    ['suspend_gns3_node', { nodes: ['R3'] }, { changesConfig: true, changesTopology: true }],
    ['start_gns3_node', { nodes: ['R1'] }, { nodes: [{ name: 'R1' }], changesTopology: true }],
    [
      'create_gns3_node',
      { nodes: [{ template: 'VPCS', name: 'PC9' }] },
      { nodes: [{ name: 'PC9', template: 'VPCS' }], changesTopology: true },
    ],
    [
      'update_gns3_node_name',
      { nodes: [{ node: 'R1', new_name: 'Core1' }] },
      { nodes: [{ name: 'R1', newName: 'Core1' }], changesTopology: true },
    ],
    [
      'create_gns3_link',
      { links: [{ node_a: 'R1', port_a: 'e0', node_b: 'R2', port_b: 'e1' }] },
      { links: [{ a: 'R1 e0', b: 'R2 e1' }], changesTopology: true },
    ],
    [
      'manage_gns3_packet_filter',
      { link: 'R1 R2', action: 'set', filters: { packet_loss: [5] } },
      { links: [{ a: 'R1 R2' }], changesTopology: true },
    ],
  ])('%s', (name, args, want) => {
    expect(targetsOf(name, args)).toMatchObject(want);
  });

  it('reads nothing into a read call or a filter lookup, and survives malformed arguments', () => {
    expect(
      targetsOf('execute_multiple_device_commands', { device_configs: [{ device_name: 'R1', commands: ['show run'] }] })?.changesConfig,
    ).toBeUndefined();
    expect(targetsOf('manage_gns3_packet_filter', { link: 'L1', action: 'get' })?.changesTopology).toBeUndefined();
    expect(targetsOf('stop_gns3_node', { nodes: 'R1' })).toMatchObject({ nodes: [], devices: [] });
    expect(targetsOf('gns3_topology_reader', {})).toBeUndefined();
  });

  it('each tool with a declaration carries it on its definition', () => {
    for (const t of allTools()) expect(t.targets, t.name).toBe((TOOL_TARGETS as Record<string, unknown>)[t.name]);
  });
});

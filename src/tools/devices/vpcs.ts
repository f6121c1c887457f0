/** execute_vpcs_commands: VPCS commands (ip, show ip, ping…) on VPCS nodes in parallel. */
import { defineTool } from '../types.js';
import { deviceCommandsSchema, runBatch } from './shared.js';

const schema = deviceCommandsSchema({
  device_name: 'VPCS node name, e.g. PC1',
  commands: 'VPCS commands, e.g. ["ip 192.168.1.10/24 192.168.1.1", "show ip", "ping 192.168.2.10 -c 2"]',
});

export const executeVpcsCommands = defineTool({
  name: 'execute_vpcs_commands',
  description:
    'Run VPCS commands on one or more VPCS nodes (all in parallel): set addresses (ip ADDR/MASK GATEWAY), show ip, ping. ' +
    'Each command returns as soon as the PC prompt is back.',
  risk: 'config',
  schema,
  run: (args, ctx) => runBatch(args.device_configs, 'vpcs', ctx),
});

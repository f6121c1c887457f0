/** execute_multiple_device_commands: read-only commands on many devices in parallel. */
import { defineTool } from '../types.js';
import { deviceCommandsSchema, runBatch } from './shared.js';

const schema = deviceCommandsSchema({
  device_name: 'node name in the GNS3 project',
  commands: 'read-only commands, e.g. "show ip route", "display ip interface brief"',
});

export const executeMultipleDeviceCommands = defineTool({
  name: 'execute_multiple_device_commands',
  description:
    'Run read-only commands (show/display/ping) on one or more devices through their consoles, all devices in parallel. ' +
    'Returns per device and per command: status (success|error|blocked|timeout|aborted), the output, and the device error line if any. ' +
    'Commands that change configuration are refused; use execute_multiple_device_config_commands for those.',
  risk: 'read',
  schema,
  run: (args, ctx) => runBatch(args.device_configs, 'read', ctx),
});

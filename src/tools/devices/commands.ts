/**
 * The command tools: `execute_multiple_device_commands` (read-only commands on
 * routers and switches) and `execute_vpcs_commands` (VPCS commands on PCs). One
 * shape, `{device_configs:[{device_name, commands:[…]}]}`, run on every device
 * in parallel; they differ in the job mode (what may be sent), risk and texts.
 */
import { z } from 'zod';
import type { JobMode } from '../../devices/engine.js';
import { defineTool, type ToolRisk } from '../types.js';
import { runBatch } from './shared.js';
import { TOOL_TARGETS } from '../targets.js';

type CommandToolName = 'execute_multiple_device_commands' | 'execute_vpcs_commands';

function commandTool(
  name: CommandToolName,
  mode: JobMode,
  risk: ToolRisk,
  text: { tool: string; brief: string; device: string; commands: string; commandsBrief: string },
) {
  const deviceConfig = z.object({
    device_name: z.string().min(1).describe(text.device),
    commands: z.array(z.string()).min(1).max(50).describe(text.commands).meta({ brief: text.commandsBrief }),
  });
  const schema = z.object({ device_configs: z.array(deviceConfig).min(1).max(256) });
  return defineTool({
    name,
    description: text.tool,
    brief: text.brief,
    risk,
    schema,
    targets: TOOL_TARGETS[name],
    run: (args, ctx) => runBatch(args.device_configs, mode, ctx),
  });
}

export const executeMultipleDeviceCommands = commandTool('execute_multiple_device_commands', 'read', 'read', {
  tool:
    'Run read-only commands (show/display/ping) on one or more devices through their consoles, all devices in parallel. ' +
    'Returns per device and per command: status (success|error|blocked|timeout|aborted), the output, and the device error line if any. ' +
    'Commands that change configuration are refused; use execute_multiple_device_config_commands for those.',
  brief: 'Read-only commands (show, ping) on devices.',
  device: 'node name in the GNS3 project',
  commands: 'read-only commands, e.g. "show ip route", "display ip interface brief"',
  commandsBrief: '',
});

export const executeVpcsCommands = commandTool('execute_vpcs_commands', 'vpcs', 'config', {
  tool:
    'Run VPCS commands on one or more VPCS nodes (all in parallel): set addresses (ip ADDR/MASK GATEWAY), show ip, ping. ' +
    'Each command returns as soon as the PC prompt is back.',
  brief: 'VPCS commands (ip ADDR/MASK GW, show ip, ping).',
  device: 'VPCS node name, e.g. PC1',
  commands: 'VPCS commands, e.g. ["ip 192.168.1.10/24 192.168.1.1", "show ip", "ping 192.168.2.10 -c 2"]',
  commandsBrief: '',
});

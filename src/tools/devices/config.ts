/** execute_multiple_device_config_commands: configuration lines on many devices in parallel. */
import { z } from 'zod';
import { defineTool } from '../types.js';
import { runBatch } from './shared.js';
import { TOOL_TARGETS } from '../targets.js';

const schema = z.object({
  device_configs: z
    .array(
      z.object({
        device_name: z.string().min(1).describe('node name in the GNS3 project'),
        config_commands: z
          .array(z.string())
          .min(1)
          .max(200)
          .describe(
            'configuration lines as typed in config mode, e.g. ["router ospf", "network 10.0.0.0/24 area 0"]; do not include "configure terminal" or "end"',
          ),
      }),
    )
    .min(1)
    .max(256),
  continue_on_error: z.boolean().optional().describe('keep sending lines after a line fails (default false: stop at the first error)'),
});

export const executeMultipleDeviceConfigCommands = defineTool({
  name: 'execute_multiple_device_config_commands',
  description:
    'Apply configuration lines on one or more devices (all in parallel). Enters configuration mode for the platform, sends each line, ' +
    'stops at the first failing line unless continue_on_error, and always returns to exec mode. Reports every line with its status and device error.',
  risk: 'config',
  schema,
  targets: TOOL_TARGETS.execute_multiple_device_config_commands,
  run: (args, ctx) =>
    runBatch(
      args.device_configs.map((d) => ({ device_name: d.device_name, commands: d.config_commands })),
      'config',
      ctx,
      args.continue_on_error !== undefined ? { continueOnError: args.continue_on_error } : {},
    ),
});

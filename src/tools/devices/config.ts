/** execute_multiple_device_config_commands: configuration lines on many devices in parallel. */
import { z } from 'zod';
import { defineTool, failure, type ToolContext, type ToolOutcome } from '../types.js';
import { runBatch } from './shared.js';
import { TOOL_TARGETS } from '../targets.js';
import { resolveTarget } from '../../devices/target.js';
import { faultArgSchema, type FaultArg } from '../../faults/spec.js';
import { admitFault, faultNote, ledgerOf, recordFault } from '../fault-ledger.js';
import { addOwnValues } from '../fault-own-values.js';
import type { FaultLedger } from '../../faults/store.js';
import { withVerification } from '../changeset/verified-change.js';

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
          )
          .meta({ brief: 'lines inside config mode' }),
      }),
    )
    .min(1)
    .max(256),
  continue_on_error: z.boolean().optional().describe('keep sending lines after a line fails (default false: stop at the first error)'),
  fault: faultArgSchema.optional(),
});

type Args = z.infer<typeof schema>;

const batchOf = (args: Args) => args.device_configs.map((d) => ({ device_name: d.device_name, commands: d.config_commands }));
const optsOf = (args: Args) => (args.continue_on_error !== undefined ? { continueOnError: args.continue_on_error } : {});

/** Inject mode: one fault on one device, checked before and recorded after it is applied. */
async function injectFault(args: Args, ctx: ToolContext, ledger: FaultLedger): Promise<ToolOutcome> {
  if (args.device_configs.length !== 1)
    return failure(
      'fault refused, nothing was applied: inject mode applies one fault per call, on one device (one entry in device_configs)',
    );
  const { device_name, config_commands } = args.device_configs[0]!;
  const topology = await (await ctx.project()).getTopology(ctx.signal);
  const resolved = resolveTarget(topology, device_name, ctx.settings);
  if (!resolved.ok) return failure(resolved.error);
  const name = resolved.target.name;
  const fault: FaultArg | undefined = args.fault;
  const admit = await admitFault(ctx, ledger, fault, {
    kind: 'device',
    name,
    platform: resolved.target.platform,
    commands: config_commands,
  });
  if (!admit.ok) return admit.outcome;
  try {
    // the device's own values the fault overrides, read before it is applied, so its restore puts them back
    await addOwnValues(admit.admitted, ctx, name, config_commands, topology);
    // the fault is meant to break something: its verification is reported, never acted on
    const out = await withVerification(batchOf(args), ctx, () => runBatch(batchOf(args), 'config', ctx, optsOf(args)), {
      reportOnly: true,
    });
    // nothing applied (the first line failed, the device is unreachable): no fault to record
    if (out.status === 'error' || typeof out.data === 'string') return out;
    const recorded = recordFault(admit.admitted, config_commands, ctx.callId);
    return {
      ...out,
      data: { ...out.data, fault: faultNote(recorded) },
      display: `${out.display ?? name} · fault #${recorded.id} recorded`,
    };
  } finally {
    admit.admitted.release();
  }
}

export const executeMultipleDeviceConfigCommands = defineTool({
  name: 'execute_multiple_device_config_commands',
  description:
    'Apply configuration lines on one or more devices (all in parallel). Enters configuration mode for the platform, sends each line, ' +
    'stops at the first failing line unless continue_on_error, and always returns to exec mode. Reports every line with its status and device error. ' +
    'In inject mode a call applies one fault on one device and needs `fault` (recorded in the fault ledger).',
  brief: 'Apply config lines on devices.',
  risk: 'config',
  schema,
  argModes: { fault: ['troubleshooting_injection'] },
  targets: TOOL_TARGETS.execute_multiple_device_config_commands,
  run: (args, ctx) => {
    const ledger = ledgerOf(ctx);
    if (ledger) return injectFault(args, ctx, ledger);
    return withVerification(batchOf(args), ctx, () => runBatch(batchOf(args), 'config', ctx, optsOf(args)));
  },
});

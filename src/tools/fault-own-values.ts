/**
 * A device fault's restore gets the device's own values back (src/faults/own-restore.ts): the
 * running configuration the fault overrides is read before the fault is applied. Reading the
 * device is this module's job; the ledger's bookkeeping (./fault-ledger.ts) stays apart from it.
 */
import type { Topology } from '../gns3/types.js';
import type { FaultLedger } from '../faults/store.js';
import { OWN_VALUE_PLATFORMS, withOwnValues, type ConfigRead } from '../faults/own-restore.js';
import { errorMessage } from '../errors.js';
import type { ToolContext } from './types.js';
import type { AdmittedFault } from './fault-ledger.js';
import { keepRead, keptRead, readBeforeChange } from './changeset/pre-change-read.js';

/**
 * The device's running configuration before the fault, for its own values: the read the caller
 * made moments before (the scenario plan's, on the ledger), else the call's pre-change read (the
 * approval preview's), else that read now — the configuration and the verification's baseline in
 * one console round, kept for the call so its baseline is not read a second time.
 */
async function configBeforeFault(ctx: ToolContext, ledger: FaultLedger, device: string, topology: Topology): Promise<ConfigRead> {
  const known = ledger.configs?.get(device.toLowerCase());
  if (known !== undefined) return { config: known };
  try {
    let read = keptRead(ctx.services, ctx.callId);
    if (!read?.captures.has(device)) {
      read = await readBeforeChange([device], topology, { config: true, baseline: true }, ctx);
      if (ctx.callId !== undefined) keepRead(ctx.services, ctx.callId, read);
    }
    const c = read.captures.get(device);
    if (c?.platform && !OWN_VALUE_PLATFORMS.has(c.platform)) return { error: `${c.platform} has no configuration sections to read` };
    if (c?.config === undefined || c.config.trim() === '')
      return { error: `cannot read ${device}'s running configuration: ${c?.error ?? 'no answer'}` };
    return { config: c.config };
  } catch (err) {
    return { error: `cannot read ${device}'s running configuration: ${errorMessage(err).split('\n')[0] ?? 'error'}` };
  }
}

/** The admitted fault's restore with the device's own values the fault's lines override (src/faults/own-values.ts). */
export async function addOwnValues(
  a: AdmittedFault,
  ctx: ToolContext,
  device: string,
  sent: readonly string[],
  topology: Topology,
): Promise<void> {
  const read = await configBeforeFault(ctx, a.ledger, device, topology);
  a.fault = { ...a.fault, restore: withOwnValues(a.fault.restore, sent, read) };
}

/**
 * A device fault's restore with the device's own values (./own-values.ts): given the running
 * configuration read before the fault was applied (src/tools/fault-own-values.ts reads it), the
 * restore gets the device's own lines after the scenario's. A configuration that could not be
 * read leaves the restore as written and says why in `own_unread`, never silently. Pure.
 */
import { ownValueLines } from './own-values.js';
import type { RestoreCall } from './store.js';

/** The platforms whose running configuration has sections to read values from. */
export const OWN_VALUE_PLATFORMS: ReadonlySet<string> = new Set(['frr', 'cisco_ios']);

export type ConfigRead = { config: string } | { error: string };

/** The restore with the device's own lines after the scenario's, or with why they could not be read. */
export function withOwnValues(restore: RestoreCall, injected: readonly string[], read: ConfigRead): RestoreCall {
  if (restore.tool !== 'execute_multiple_device_config_commands') return restore;
  const configs = restore.args.device_configs as { device_name: string; config_commands: string[] }[] | undefined;
  const first = configs?.[0];
  if (!first || configs.length !== 1) return restore;
  if ('error' in read) return { ...restore, own_unread: read.error };
  const own = ownValueLines(injected, first.config_commands, read.config);
  if (own.length === 0) return restore;
  return {
    ...restore,
    args: { ...restore.args, device_configs: [{ ...first, config_commands: [...first.config_commands, ...own] }] },
    own_lines: own,
  };
}

/**
 * A device fault's restore with the device's own values (./own-values.ts): the running
 * configuration is read once before the fault is applied — or taken from the read the
 * caller made moments before (the scenario planner's facts) — and the restore gets the
 * device's own lines after the scenario's. A configuration that cannot be read leaves the
 * restore as written and says why in `own_unread`, never silently.
 */
import { runDeviceJobs, poolFor } from '../devices/engine.js';
import type { DeviceTarget } from '../devices/target.js';
import { errorMessage } from '../errors.js';
import type { ToolContext } from '../tools/types.js';
import { ownValueLines } from './own-values.js';
import type { RestoreCall } from './store.js';

/** The platforms whose running configuration has sections to read values from. */
const CONFIG_PLATFORMS = new Set(['frr', 'cisco_ios']);

export type ConfigRead = { config: string } | { error: string };

/** `show running-config` on the device, one console round; why not when it cannot be read. */
export async function readRunningConfig(
  target: DeviceTarget,
  ctx: Pick<ToolContext, 'services' | 'settings' | 'log' | 'signal'>,
): Promise<ConfigRead> {
  const pool = poolFor(ctx.services, ctx.settings, ctx.log);
  let platform = target.platform;
  try {
    platform ??= (await pool.acquire(target, ctx.signal)).platform;
  } catch (err) {
    return { error: `cannot reach ${target.name}: ${errorMessage(err).split('\n')[0] ?? 'error'}` };
  }
  if (!platform || !CONFIG_PLATFORMS.has(platform)) return { error: `${platform ?? 'its platform'} has no running configuration to read` };
  const [r] = await runDeviceJobs(
    [{ device_name: target.name, resolved: { ok: true, target: { ...target, platform } }, commands: ['show running-config'] }],
    { mode: 'read', settings: ctx.settings, pool, signal: ctx.signal, log: ctx.log },
  );
  const c = r?.results[0];
  if (c?.status === 'success' && c.output.trim() !== '') return { config: c.output };
  return { error: `cannot read ${target.name}'s running configuration: ${c?.error ?? r?.error ?? 'no answer'}` };
}

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

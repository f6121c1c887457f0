/**
 * Which system config file holds the classroom locks. The default lives under
 * /etc; GNS3_COPILOT_SYSTEM_CONFIG may point elsewhere, but only at a file the
 * user cannot have written: a regular file owned by root, not writable by
 * group or others, in a directory with the same property. Anything else
 * (/dev/null, a file in $HOME, a world-writable file) would let any student
 * lift every lock, so it is ignored with a warning and the default is used.
 */
import { realpathSync, statSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';

export const DEFAULT_SYSTEM_CONFIG = '/etc/gns3-copilot/config.json';
export const SYSTEM_CONFIG_ENV = 'GNS3_COPILOT_SYSTEM_CONFIG';

export interface SystemConfigChoice {
  file: string;
  /** set when the override was refused */
  warning?: string;
}

/** Root-owned and not writable by group/others (by owner uid and mode bits, not by who runs us). */
function adminOnly(st: Stats): boolean {
  return st.uid === 0 && (st.mode & 0o022) === 0;
}

function exists(file: string): boolean {
  try {
    statSync(file);
    return true;
  } catch {
    return false;
  }
}

/** Why `file` cannot be trusted as the system config, or undefined when it can. */
export function untrustedReason(file: string): string | undefined {
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    return 'it does not exist';
  }
  const st = statSync(real);
  if (!st.isFile()) return 'it is not a regular file';
  if (!adminOnly(st)) return 'it is not owned by root or is writable by group/others';
  if (!adminOnly(statSync(dirname(real)))) return 'its directory is not owned by root or is writable by group/others';
  return undefined;
}

export function resolveSystemConfig(env: NodeJS.ProcessEnv = process.env): SystemConfigChoice {
  const override = env[SYSTEM_CONFIG_ENV];
  if (!override || override === DEFAULT_SYSTEM_CONFIG) return { file: DEFAULT_SYSTEM_CONFIG };
  const reason = untrustedReason(override);
  if (!reason) return { file: override };
  // A missing override while no system config exists at all lifts nothing: keep its name quietly.
  if (reason === 'it does not exist' && !exists(DEFAULT_SYSTEM_CONFIG)) return { file: override };
  return {
    file: DEFAULT_SYSTEM_CONFIG,
    warning: `ignored ${SYSTEM_CONFIG_ENV}=${override}: ${reason} (classroom locks are read only from a root-owned file); using ${DEFAULT_SYSTEM_CONFIG}`,
  };
}

/**
 * The facts a change set's template may use (`device.name`, `.index`, `.platform`,
 * `.interfaces`): the platform as the console shows it, the interfaces read with the same
 * command and parser `check --init` uses (src/check/parse.ts), read-only through the device
 * engine. Read only when the template names them, one console round per device, in parallel.
 */
import type { Settings } from '../../config/schema.js';
import type { Topology } from '../../gns3/types.js';
import type { Logger } from '../../log.js';
import { runDeviceJobs, type DeviceJob } from '../../devices/engine.js';
import type { PlatformName } from '../../devices/drivers.js';
import { runLimited } from '../../core/run-limited.js';
import { errorMessage } from '../../errors.js';
import type { DevicePool } from '../../devices/pool.js';
import { findNode, platformHint, resolveTarget } from '../../devices/target.js';
import { parseFrrInterfaceBrief, parseIosInterfaceBrief, type InterfaceRow } from '../../check/parse.js';
import type { DeviceFacts, InterfaceFact } from './render.js';

/** Does the template read facts that need the console (anything beyond name and index)? */
export const needsConsoleFacts = (template: string): boolean => /\bdevice\s*\.\s*(interfaces|platform)\b|\bdevice\s*\[/.test(template);

const BRIEF: Partial<Record<string, string>> = { frr: 'show interface brief', cisco_ios: 'show ip interface brief' };

function networkOf(address: string, len: number): string {
  const parts = address.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return '';
  const n = (((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0) & (len === 0 ? 0 : (~0 << (32 - len)) >>> 0);
  return `${[24, 16, 8, 0].map((s) => ((n >>> 0) >>> s) & 255).join('.')}/${len}`;
}

export function interfaceFact(row: InterfaceRow): InterfaceFact {
  const first = row.addresses.find((a) => /^\d+\.\d+\.\d+\.\d+/.test(a)) ?? '';
  const [address = '', len] = first.split('/');
  const prefix = len !== undefined && /^\d+$/.test(len) && Number(len) <= 32 ? Number(len) : null;
  return { name: row.name, address, prefix_length: prefix, network: prefix === null ? '' : networkOf(address, prefix), state: row.state };
}

export interface FactsContext {
  topology: Topology;
  settings: Settings;
  pool: DevicePool;
  signal?: AbortSignal;
  log?: Logger;
}

/** Name and index only (no console read): the platform is the topology's hint. */
export function plainFacts(devices: readonly string[], topology: Topology): DeviceFacts[] {
  return devices.map((name, i) => ({ name, index: i + 1, platform: platformHint(findNode(topology, name)) ?? 'unknown', interfaces: [] }));
}

/** Every device's facts read from its console; a device that cannot be read is an error naming it. */
export async function readFacts(devices: readonly string[], c: FactsContext): Promise<{ facts: DeviceFacts[]; errors: string[] }> {
  const facts = plainFacts(devices, c.topology);
  const errors: string[] = [];
  // the platform the console shows decides the reader; the session opened stays pooled for the apply
  const jobs = await runLimited(facts, c.settings.device_concurrency, async (f): Promise<DeviceJob | undefined> => {
    const resolved = resolveTarget(c.topology, f.name, c.settings);
    if (!resolved.ok) {
      errors.push(`${f.name}: ${resolved.error}`);
      return undefined;
    }
    if (f.platform === 'vpcs') return undefined;
    try {
      f.platform = (await c.pool.acquire(resolved.target, c.signal)).platform;
    } catch (err) {
      errors.push(`${f.name}: cannot read its facts: ${errorMessage(err).split('\n')[0]}`);
      return undefined;
    }
    const brief = BRIEF[f.platform];
    const target = { ...resolved.target, platform: f.platform as PlatformName };
    return brief ? { device_name: f.name, resolved: { ok: true, target }, commands: [brief] } : undefined;
  });
  const results = await runDeviceJobs(
    jobs.filter((j): j is DeviceJob => j !== undefined),
    { mode: 'read', settings: c.settings, pool: c.pool, ...(c.signal ? { signal: c.signal } : {}), ...(c.log ? { log: c.log } : {}) },
  );
  for (const r of results) {
    const f = facts.find((p) => p.name === r.device_name)!;
    const out = r.results[0];
    const text = out?.status === 'success' ? out.output : undefined;
    const rows = text === undefined ? undefined : f.platform === 'frr' ? parseFrrInterfaceBrief(text) : parseIosInterfaceBrief(text);
    if (!rows) errors.push(`${f.name}: cannot read its interfaces: ${r.error ?? out?.error ?? 'unrecognised output'}`);
    else f.interfaces = rows.map(interfaceFact);
  }
  return { facts, errors };
}

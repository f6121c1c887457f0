/**
 * The facts a change set's template may use (`device.name`, `.index`, `.platform`,
 * `.interfaces`): the platform as the console shows it, the interfaces read with the same
 * command and parser `check --init` uses (src/check/state.ts), read-only through the device
 * engine. Read only when the template names them, in the one console round per device that
 * also reads the preview's configuration and the baseline (./pre-change-read.ts).
 */
import type { Topology } from '../../gns3/types.js';
import { findNode, platformHint } from '../../devices/target.js';
import type { InterfaceRow } from '../../check/parse.js';
import { hasStateReaders } from '../../check/state.js';
import type { PreChangeRead } from './pre-change-read.js';
import type { DeviceFacts, InterfaceFact } from './render.js';

/** Does the template read facts that need the console (anything beyond name and index)? */
export const needsConsoleFacts = (template: string): boolean => /\bdevice\s*\.\s*(interfaces|platform)\b|\bdevice\s*\[/.test(template);

function networkOf(address: string, len: number): string {
  const parts = address.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return '';
  const n = (((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0) & (len === 0 ? 0 : (~0 << (32 - len)) >>> 0);
  return `${[24, 16, 8, 0].map((s) => ((n >>> 0) >>> s) & 255).join('.')}/${len}`;
}

export function interfaceFact(row: Omit<InterfaceRow, 'line'> & Partial<Pick<InterfaceRow, 'line'>>): InterfaceFact {
  const first = row.addresses.find((a) => /^\d+\.\d+\.\d+\.\d+/.test(a)) ?? '';
  const [address = '', len] = first.split('/');
  const prefix = len !== undefined && /^\d+$/.test(len) && Number(len) <= 32 ? Number(len) : null;
  return { name: row.name, address, prefix_length: prefix, network: prefix === null ? '' : networkOf(address, prefix), state: row.state };
}

/** Name and index only (no console read): the platform is the topology's hint. */
export function plainFacts(devices: readonly string[], topology: Topology): DeviceFacts[] {
  return devices.map((name, i) => ({ name, index: i + 1, platform: platformHint(findNode(topology, name)) ?? 'unknown', interfaces: [] }));
}

/**
 * Every device's facts from the read before the change (./pre-change-read.ts: the same
 * console round as the preview and the baseline); a device that could not be read is an
 * error naming it.
 */
export function factsFromRead(devices: readonly string[], read: PreChangeRead): { facts: DeviceFacts[]; errors: string[] } {
  const facts = plainFacts(devices, read.topology);
  const errors: string[] = [];
  for (const f of facts) {
    const seen = read.platforms.get(f.name);
    // a PC is not read for facts (as named in the topology); a platform without interface readers has none
    if (f.platform === 'vpcs' || (seen !== undefined && !hasStateReaders(seen))) {
      f.platform = seen ?? f.platform;
      continue;
    }
    if (seen !== undefined) f.platform = seen;
    const state = read.states.get(f.name);
    if (state === undefined || state.error !== undefined)
      errors.push(`${f.name}: cannot read its interfaces: ${state?.error ?? 'not read'}`);
    else f.interfaces = Object.entries(state.interfaces).map(([name, i]) => interfaceFact({ name, ...i }));
  }
  return { facts, errors };
}

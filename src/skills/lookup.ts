/** Finding skills by the names people and models actually use (aliases, case, - vs _). */
import type { DeviceSkill, InjectionScenario, PacketSkill } from './schema.js';
import type { SkillLibrary } from './loader.js';

export function normalizeName(s: string): string {
  return s.trim().toLowerCase().replace(/[\s-]+/g, '_');
}

function byKeyOrAlias<T extends { aliases: string[] }>(map: Map<string, T>, keyOf: (t: T) => string, name: string): T | undefined {
  const n = normalizeName(name);
  const direct = map.get(n) ?? map.get(name.trim().toLowerCase());
  if (direct) return direct;
  for (const v of map.values())
    if (normalizeName(keyOf(v)) === n || v.aliases.some((a) => normalizeName(a) === n)) return v;
  return undefined;
}

export function findPlatform(lib: SkillLibrary, name: string): DeviceSkill | undefined {
  const found = byKeyOrAlias(lib.device, (d) => d.platform, name);
  if (found) return found;
  // Netmiko-style device types: cisco_ios_telnet, huawei_telnet, … → strip the transport suffix.
  const stripped = normalizeName(name).replace(/_(telnet|ssh|serial)$/, '');
  return stripped !== normalizeName(name) ? byKeyOrAlias(lib.device, (d) => d.platform, stripped) : undefined;
}

export function findProtocol(lib: SkillLibrary, name: string): PacketSkill | undefined {
  return byKeyOrAlias(lib.packet, (p) => p.protocol, name);
}

export function findScenario(lib: SkillLibrary, id: string): InjectionScenario | undefined {
  return lib.injection.get(normalizeName(id)) ?? lib.injection.get(id.trim());
}

/** Up to `limit` names that contain the query or are contained in it — for "did you mean". */
export function suggest(names: Iterable<string>, query: string, limit = 5): string[] {
  const q = normalizeName(query);
  const out: string[] = [];
  for (const n of names) {
    const m = normalizeName(n);
    if (q.length > 0 && (m.includes(q) || q.includes(m))) out.push(n);
    if (out.length >= limit) break;
  }
  return out;
}

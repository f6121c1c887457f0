/**
 * Port addressing: users and models say `e0`, `Ethernet0`, `eth0`, `Gi0/0`,
 * `f0/1` or `adapter/port` (`0/1`); nodes name ports in their own style. Resolve
 * to exactly one port or explain which ports exist and are free.
 */
import type { TopologyPort } from './types.js';

export interface PortRef {
  name: string;
  short_name: string;
  adapter_number: number;
  port_number: number;
}

/** Interface-name prefixes that all mean "an Ethernet port, numbered …". */
const ETHERNET_ALIASES = new Set([
  'e',
  'eth',
  'ether',
  'ethernet',
  'en',
  'ens',
  'g',
  'gi',
  'gig',
  'gigabit',
  'gigabitethernet',
  'ge',
  'f',
  'fa',
  'fastethernet',
  'fe',
  'te',
  'tengigabitethernet',
  'xe',
  'port',
  'p',
]);

function split(name: string): { prefix: string; nums: number[] } {
  const s = name.trim().toLowerCase().replace(/\s+/g, '');
  const m = /^([a-z_-]*?)[_-]?(\d+(?:[/:.]\d+)*)$/.exec(s);
  if (!m) return { prefix: s, nums: [] };
  return { prefix: (m[1] ?? '').replace(/[_-]/g, ''), nums: (m[2] ?? '').split(/[/:.]/).map(Number) };
}

const sameNums = (a: number[], b: number[]) => a.length === b.length && a.every((n, i) => n === b[i]);

/** Finds the port a user meant; undefined when unknown or ambiguous. */
export function matchPort<P extends PortRef>(ports: P[], wanted: string): P | undefined {
  const w = wanted.trim();
  const lw = w.toLowerCase();
  const exact = ports.filter((p) => p.name.toLowerCase() === lw || p.short_name.toLowerCase() === lw);
  if (exact.length === 1) return exact[0];

  const ap = /^(\d+)\s*\/\s*(\d+)$/.exec(w);
  if (ap) {
    const a = Number(ap[1]);
    const n = Number(ap[2]);
    const byNumber = ports.filter((p) => p.adapter_number === a && p.port_number === n);
    if (byNumber.length === 1) return byNumber[0];
  }

  const want = split(w);
  if (want.nums.length === 0) return undefined;
  const candidates = ports.filter((p) => {
    for (const label of [p.name, p.short_name]) {
      const have = split(label);
      if (!sameNums(have.nums, want.nums)) continue;
      if (have.prefix === want.prefix) return true;
      if (ETHERNET_ALIASES.has(have.prefix) && (ETHERNET_ALIASES.has(want.prefix) || want.prefix === '')) return true;
    }
    return false;
  });
  if (candidates.length === 1) return candidates[0];

  // "eth1" on a node whose ports are numbered by adapter only (Ethernet0, Ethernet1 …)
  if (want.nums.length === 1 && (ETHERNET_ALIASES.has(want.prefix) || want.prefix === '')) {
    const n = want.nums[0]!;
    const byAdapter = ports.filter((p) => p.adapter_number === n && ports.filter((q) => q.adapter_number === n).length === 1);
    if (byAdapter.length === 1) return byAdapter[0];
  }
  return undefined;
}

/** "e0, e1, e2" or "e1-e7" style summary of a port list, token-lean. */
export function summarizePorts(ports: { short_name: string }[]): string {
  if (ports.length === 0) return 'none';
  const out: string[] = [];
  let i = 0;
  while (i < ports.length) {
    const start = split(ports[i]!.short_name);
    let j = i;
    while (j + 1 < ports.length) {
      const next = split(ports[j + 1]!.short_name);
      const cur = split(ports[j]!.short_name);
      if (
        next.prefix === start.prefix &&
        next.nums.length === cur.nums.length &&
        cur.nums.length > 0 &&
        sameNums(next.nums.slice(0, -1), cur.nums.slice(0, -1)) &&
        next.nums.at(-1) === cur.nums.at(-1)! + 1
      ) {
        j++;
      } else break;
    }
    if (j - i >= 2) out.push(`${ports[i]!.short_name}-${ports[j]!.short_name}`);
    else for (let k = i; k <= j; k++) out.push(ports[k]!.short_name);
    i = j + 1;
  }
  return out.join(',');
}

export function freePorts(ports: TopologyPort[]): TopologyPort[] {
  return ports.filter((p) => p.link_id === null);
}

/**
 * Parsers for the device output the checks read, per platform family: FRR and
 * Cisco IOS (one "IOS-like" family with small differences), VPCS and Linux hosts.
 * Each returns rows that keep their source line, so a verdict can quote the line
 * that decided it. Pure functions: tests feed them recorded output.
 */

const lines = (text: string) => text.split(/\r?\n/);

// ---------------------------------------------------------------- interfaces

export interface InterfaceRow {
  name: string;
  /** operational state as the device words it (up, down, administratively down) */
  state: string;
  addresses: string[];
  line: string;
}

/** FRR `show interface brief`: `eth0  up  default  10.0.1.1/24` (extra addresses on following lines). */
export function parseFrrInterfaceBrief(text: string): InterfaceRow[] | undefined {
  const rows: InterfaceRow[] = [];
  let header = false;
  for (const line of lines(text)) {
    if (/^Interface\s+Status\s+VRF\s+Addresses/.test(line)) {
      header = true;
      continue;
    }
    if (!header || /^-{3,}/.test(line) || line.trim() === '') continue;
    const m = /^(\S+)\s+(up|down|\S+)\s+(\S+)\s*(\S*)/.exec(line);
    if (m) rows.push({ name: m[1]!, state: m[2]!.toLowerCase(), addresses: m[4] ? [m[4]] : [], line: line.trim() });
    else if (/^\s+\d+\.\d+\.\d+\.\d+\/\d+/.test(line) && rows.length > 0) rows[rows.length - 1]!.addresses.push(line.trim());
  }
  return header ? rows : undefined;
}

/** IOS `show ip interface brief`: `Gi0/0  10.0.1.1  YES manual up  up` (no prefix length). */
export function parseIosInterfaceBrief(text: string): InterfaceRow[] | undefined {
  const rows: InterfaceRow[] = [];
  let header = false;
  for (const line of lines(text)) {
    if (/^Interface\s+IP-Address\s+OK\?/.test(line)) {
      header = true;
      continue;
    }
    const m = /^(\S+)\s+(\S+)\s+\S+\s+\S+\s+(administratively down|up|down|deleted)\s+(up|down)/.exec(line);
    if (!header || !m) continue;
    const state = m[3] === 'up' && m[4] === 'up' ? 'up' : m[3] === 'up' ? 'down' : m[3]!;
    rows.push({ name: m[1]!, state, addresses: /^\d/.test(m[2]!) ? [m[2]!] : [], line: line.trim() });
  }
  return header ? rows : undefined;
}

/** Linux `ip -o addr show` and `ip -o link show` together. */
export function parseLinuxInterfaces(links: string, addrs: string): InterfaceRow[] | undefined {
  const rows = new Map<string, InterfaceRow>();
  for (const line of lines(links)) {
    const m = /^\d+:\s+([^:@\s]+)(?:@\S+)?:\s+<([^>]*)>.*?\bstate\s+(\S+)/.exec(line);
    if (!m) continue;
    const flags = m[2]!.split(',');
    const up = m[3] === 'UP' || (m[3] === 'UNKNOWN' && flags.includes('UP') && flags.includes('LOWER_UP'));
    rows.set(m[1]!, { name: m[1]!, state: up ? 'up' : 'down', addresses: [], line: line.trim() });
  }
  if (rows.size === 0) return undefined;
  for (const line of lines(addrs)) {
    const m = /^\d+:\s+(\S+)\s+inet\s+(\S+)/.exec(line);
    const row = m ? rows.get(m[1]!) : undefined;
    if (row) row.addresses.push(m![2]!);
  }
  return [...rows.values()];
}

/** Short and long interface names mean the same port: `Gi0/0` = `GigabitEthernet0/0`. */
export function sameInterface(a: string, b: string): boolean {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (x === y) return true;
  const split = (s: string) => /^([a-z-]+)\s*([\d/.:]*)$/.exec(s);
  const p = split(x);
  const q = split(y);
  if (!p || !q || p[2] !== q[2] || p[2] === '') return false;
  return p[1]!.startsWith(q[1]!) || q[1]!.startsWith(p[1]!);
}

// ---------------------------------------------------------------- OSPF and BGP

export interface NeighborRow {
  id: string;
  state: string;
  address: string;
  line: string;
}

/** FRR and IOS `show ip ospf neighbor`: `10.255.255.2  1 Full/-  7.8s  3.5s 10.0.1.2  eth0:10.0.1.1 …`. */
export function parseOspfNeighbors(text: string): NeighborRow[] {
  const rows: NeighborRow[] = [];
  for (const line of lines(text)) {
    const m = /^(\d+\.\d+\.\d+\.\d+)\s+\d+\s+([A-Za-z-]+)(?:\/\S*)?\s+.*?(\d+\.\d+\.\d+\.\d+)\s+\S+/.exec(line);
    if (m) rows.push({ id: m[1]!, state: m[2]!, address: m[3]!, line: line.trim() });
  }
  return rows;
}

export interface BgpRow {
  peer: string;
  /** Established when the State/PfxRcd column holds a prefix count */
  state: string;
  line: string;
}

/** FRR and IOS `show ip bgp summary`; undefined when the output is no BGP summary (BGP not running). */
export function parseBgpSummary(text: string): BgpRow[] | undefined {
  let header = false;
  const rows: BgpRow[] = [];
  for (const line of lines(text)) {
    if (/^Neighbor\s+V\s+AS\s+/.test(line)) {
      header = true;
      continue;
    }
    if (!header) continue;
    const cols = line.trim().split(/\s+/);
    if (!/^\d+\.\d+\.\d+\.\d+$/.test(cols[0] ?? '') || cols.length < 10) continue;
    const st = cols[9]!;
    rows.push({ peer: cols[0]!, state: /^\d+$/.test(st) ? 'Established' : st, line: line.trim() });
  }
  if (header) return rows;
  // "No BGP neighbors found" is a real answer: BGP runs and has no peer.
  return /No BGP neighbors found|BGP router identifier/i.test(text) ? rows : undefined;
}

// ---------------------------------------------------------------- routes

export interface RouteRow {
  prefix: string;
  protocol: string;
  /** FRR: marked selected (`>`); IOS shows only selected routes */
  selected: boolean;
  via: string[];
  line: string;
}

const ROUTE_CODES: Record<string, string> = {
  C: 'connected',
  L: 'local',
  S: 'static',
  O: 'ospf',
  B: 'bgp',
  R: 'rip',
  I: 'isis',
  i: 'isis',
  D: 'eigrp',
  E: 'eigrp',
  K: 'kernel',
};

const MASKS: Record<string, number> = {};
for (let n = 0; n <= 32; n++) {
  const v = n === 0 ? 0 : (0xffffffff << (32 - n)) >>> 0;
  MASKS[[24, 16, 8, 0].map((s) => (v >>> s) & 255).join('.')] = n;
}
export const maskLength = (mask: string): number | undefined => MASKS[mask];

/** FRR and IOS `show ip route` (IOS classful "is subnetted" headers give the length of the lines below). */
export function parseIosRoutes(text: string): RouteRow[] | undefined {
  const rows: RouteRow[] = [];
  let sawCodes = false;
  let subnetLen: number | undefined;
  // FRR lists every RIB entry and marks the selected one with `>`; IOS lists only the selected ones.
  const marksSelected = /> - selected route/.test(text);
  for (const line of lines(text)) {
    if (/^Codes:/.test(line)) sawCodes = true;
    const sub = /^\s+\d+\.\d+\.\d+\.\d+\/(\d+) is (?:variably )?subnetted/.exec(line);
    if (sub) {
      subnetLen = /variably/.test(line) ? undefined : Number(sub[1]);
      continue;
    }
    const m = /^([A-Za-z][A-Za-z*>+%]*(?:\s(?:IA|E1|E2|N1|N2|L1|L2|ia|su))?)\s+(\d+\.\d+\.\d+\.\d+)(\/\d+)?\s+(.*)$/.exec(line);
    if (m) {
      const code = m[1]!;
      const len = m[3] ? m[3] : subnetLen !== undefined ? `/${subnetLen}` : '';
      if (!len) continue;
      const vias = [...m[4]!.matchAll(/via (\d+\.\d+\.\d+\.\d+)/g)].map((v) => v[1]!);
      rows.push({
        prefix: `${m[2]}${len}`,
        protocol: ROUTE_CODES[code[0]!] ?? code[0]!,
        selected: !marksSelected || code.includes('>'),
        via: vias,
        line: line.trim(),
      });
      continue;
    }
    // an ECMP next hop continues the route above: `  *   via 10.0.3.2, eth1`
    const cont = /^\s+\*?\s*(?:\[\d+\/\d+\]\s+)?via (\d+\.\d+\.\d+\.\d+)/.exec(line);
    if (cont && rows.length > 0) rows[rows.length - 1]!.via.push(cont[1]!);
  }
  return sawCodes || rows.length > 0 ? rows : undefined;
}

/** Linux `ip route show`: `10.0.2.0/24 via 10.0.1.2 dev eth0 proto ospf metric 20`. */
export function parseLinuxRoutes(text: string): RouteRow[] {
  const rows: RouteRow[] = [];
  for (const line of lines(text)) {
    const m = /^(default|\d+\.\d+\.\d+\.\d+(?:\/\d+)?)\s+(.*)$/.exec(line.trim());
    if (!m) continue;
    const prefix = m[1] === 'default' ? '0.0.0.0/0' : m[1]!.includes('/') ? m[1]! : `${m[1]}/32`;
    const via = /\bvia (\d+\.\d+\.\d+\.\d+)/.exec(m[2]!)?.[1];
    const proto = /\bproto (\S+)/.exec(m[2]!)?.[1];
    const protocol = proto === 'kernel' && !via ? 'connected' : proto === 'boot' ? 'static' : (proto ?? (via ? 'static' : 'connected'));
    rows.push({ prefix, protocol, selected: true, via: via ? [via] : [], line: line.trim() });
  }
  return rows;
}

// ---------------------------------------------------------------- config

/** The lines of a running-config block that starts with `section` (its indented body), or the whole config. */
export function configSection(text: string, section: string | undefined): string[] | undefined {
  const all = lines(text).map((l) => l.replace(/\s+$/, ''));
  if (!section) return all;
  const want = section.trim().replace(/\s+/g, ' ').toLowerCase();
  const start = all.findIndex((l) => !/^\s/.test(l) && l.trim().replace(/\s+/g, ' ').toLowerCase() === want);
  if (start < 0) return undefined;
  const body = [all[start]!];
  for (const l of all.slice(start + 1)) {
    if (!/^\s/.test(l) || l.trim() === '') break;
    body.push(l);
  }
  return body;
}

// ---------------------------------------------------------------- ping

export interface PingVerdict {
  sent: number;
  received: number;
  line: string;
}

/** IOS: `Success rate is 100 percent (5/5)`. */
export function parseIosPing(text: string): PingVerdict | undefined {
  for (const line of lines(text)) {
    const m = /Success rate is \d+ percent \((\d+)\/(\d+)\)/.exec(line);
    if (m) return { sent: Number(m[2]), received: Number(m[1]), line: line.trim() };
  }
  return undefined;
}

/** Linux / FRR (FRR's vtysh runs the system ping): the summary line, or the reply lines when interrupted before it. */
export function parseUnixPing(text: string, expected: number): PingVerdict | undefined {
  const ls = lines(text);
  for (const line of ls) {
    const m = /(\d+) packets transmitted, (\d+) (?:packets )?received/.exec(line);
    if (m) return { sent: Number(m[1]), received: Number(m[2]), line: line.trim() };
  }
  const fatal = ls.find((l) => /(Network is unreachable|unknown host|Name or service not known|Invalid argument|not permitted)/i.test(l));
  if (fatal) return { sent: expected, received: 0, line: fatal.trim() };
  const replies = ls.filter((l) => /bytes from .*icmp_seq=/.test(l));
  const seqs = ls.map((l) => /icmp_seq=(\d+)/.exec(l)).filter((m): m is RegExpExecArray => m !== null);
  const sent = Math.max(expected, ...seqs.map((m) => Number(m[1])));
  const last = replies[replies.length - 1] ?? ls.filter((l) => l.trim() !== '').pop();
  return { sent, received: replies.length, line: `${replies.length}/${sent} replies${last ? `: ${last.trim()}` : ''}` };
}

/** VPCS `ping X -c N`: one line per probe, `84 bytes from …` or `… timeout` / `host (…) not reachable`. */
export function parseVpcsPing(text: string, count: number): PingVerdict | undefined {
  const ls = lines(text).filter((l) => l.trim() !== '');
  // a reply carries the TTL (`84 bytes from X icmp_seq=1 ttl=64 …`, or `X icmp_seq=1 ttl=63 …` across a router)
  const replies = ls.filter((l) => /icmp_seq=\d+ ttl=\d+/.test(l));
  const probes = ls.filter((l) => /icmp_seq=|timeout|not reachable|Destination/.test(l));
  if (probes.length === 0) return ls.length > 0 ? { sent: count, received: 0, line: ls[ls.length - 1]!.trim() } : undefined;
  const decisive = replies.length === probes.length ? replies[replies.length - 1]! : probes.find((l) => !replies.includes(l))!;
  return { sent: Math.max(count, probes.length), received: replies.length, line: `${replies.length}/${count} replies: ${decisive.trim()}` };
}

// ---------------------------------------------------------------- VPCS addresses

/** VPCS `show ip`: the address (`192.168.1.10/24`) and its `IP/MASK` line; undefined for a PC without one. */
export function parseVpcsShowIp(text: string): { address: string; line: string } | undefined {
  for (const l of lines(text)) {
    const m = /^\s*IP\/MASK\s*:\s*(\d+\.\d+\.\d+\.\d+\/\d+)\s*$/.exec(l);
    if (m && !m[1]!.startsWith('0.0.0.0/')) return { address: m[1]!, line: l.trim() };
  }
  return undefined;
}

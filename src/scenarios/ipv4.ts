/** The few IPv4 sums parameter resolution needs (prefixes, masks, containment). Pure. */

export function toInt(a: string): number | undefined {
  const p = a.split('.').map(Number);
  if (p.length !== 4 || p.some((x) => !Number.isInteger(x) || x < 0 || x > 255)) return undefined;
  return ((p[0]! << 24) | (p[1]! << 16) | (p[2]! << 8) | p[3]!) >>> 0;
}

export const fromInt = (n: number): string => [24, 16, 8, 0].map((s) => (n >>> s) & 255).join('.');

const maskOf = (len: number): number => (len === 0 ? 0 : (0xffffffff << (32 - len)) >>> 0);

export interface Cidr {
  address: string;
  len: number;
}

/** `10.0.1.1/24` → its parts, undefined when it is not one. */
export function parseCidr(text: string): Cidr | undefined {
  const m = /^(\d+\.\d+\.\d+\.\d+)\/(\d+)$/.exec(text.trim());
  if (!m || toInt(m[1]!) === undefined || Number(m[2]) > 32) return undefined;
  return { address: m[1]!, len: Number(m[2]) };
}

/** The network of an address: `10.0.1.1/24` → `10.0.1.0/24`. */
export function networkOf(c: Cidr): string {
  return `${fromInt(toInt(c.address)! & maskOf(c.len))}/${c.len}`;
}

export function contains(prefix: Cidr, address: string): boolean {
  const a = toInt(address);
  return a !== undefined && (a & maskOf(prefix.len)) >>> 0 === (toInt(prefix.address)! & maskOf(prefix.len)) >>> 0;
}

/** IOS writes `10.0.1.1 255.255.255.0` where FRR writes `10.0.1.1/24`. */
export function dottedMask(c: Cidr): string {
  return `${c.address} ${fromInt(maskOf(c.len))}`;
}

/** The upper half of a prefix (`192.168.100.0/24` → `192.168.100.128/25`), undefined for a host route. */
export function upperHalf(c: Cidr): Cidr | undefined {
  if (c.len >= 32) return undefined;
  const base = toInt(c.address)! & maskOf(c.len);
  return { address: fromInt((base | (1 << (31 - c.len))) >>> 0), len: c.len + 1 };
}

/** The address at `host` of a subnet, counted from its end (1 = the last usable one), unless it is one of `taken`. */
export function spareHost(c: Cidr, taken: readonly string[]): string | undefined {
  if (c.len > 29) return undefined;
  const base = toInt(c.address)! & maskOf(c.len);
  const broadcast = (base | (~maskOf(c.len) >>> 0)) >>> 0;
  for (let n = broadcast - 1; n > base && broadcast - n < 8; n--) if (!taken.includes(fromInt(n))) return fromInt(n);
  return undefined;
}

/**
 * A VPCS PC has no configuration file: what it keeps is its address, mask,
 * gateway and DNS, printed by `show ip`. A checkpoint stores them as the lines
 * that set them (`ip 192.168.1.10/24 192.168.1.1`, `ip dns 8.8.8.8`), so the
 * diff reads like the commands and a restore sends the checkpoint's lines.
 */

const UNSET = new Set(['', '0.0.0.0', '0.0.0.0/0']);

/** `show ip` output → the setting lines (empty text for a PC without an address). */
export function vpcsConfigOf(showIp: string): string {
  const field = (name: string) => new RegExp(`^[ \\t]*${name}[ \\t]*:[ \\t]*(.*?)[ \\t\\r]*$`, 'im').exec(showIp)?.[1] ?? '';
  const address = field('IP/MASK');
  const gateway = field('GATEWAY');
  const dns = field('DNS')
    .split(/\s+/)
    .filter((d) => !UNSET.has(d));
  const lines: string[] = [];
  if (!UNSET.has(address)) lines.push(`ip ${address}${UNSET.has(gateway) ? '' : ` ${gateway}`}`);
  if (dns.length > 0) lines.push(`ip dns ${dns.join(' ')}`);
  return lines.join('\n');
}

/** `show ip` is the capture command: true when the text looks like its answer. */
export function looksLikeShowIp(text: string): boolean {
  return /^\s*IP\/MASK\s*:/im.test(text);
}

/**
 * The commands that take a PC from `current` back to `target` (both as
 * vpcsConfigOf returns them): `clear ip` when the checkpoint had no address,
 * else the checkpoint's own lines.
 */
export function vpcsRestore(target: string, current: string): string[] {
  if (target.trim() === current.trim()) return [];
  const want = target.split('\n').filter((l) => l.trim() !== '');
  const hasAddress = want.some((l) => /^ip \d/.test(l));
  const commands: string[] = [];
  if (!hasAddress || current.split('\n').some((l) => /^ip dns /.test(l) && !want.includes(l))) commands.push('clear ip');
  commands.push(...want);
  return commands;
}

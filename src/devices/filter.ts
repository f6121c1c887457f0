/**
 * Command safety: one command per line and no control characters, the
 * forbidden-command filter (settings.forbidden_commands) and the read-only check
 * used by the read tool. Blocked commands are never sent.
 */
import type { PlatformName } from './drivers.js';

/**
 * Case-insensitive prefix match, also catching CLI abbreviations: `deb all`
 * matches `debug` and `wr er` matches `write erase` (each typed word a prefix of
 * the forbidden word, at least two letters), because devices accept them.
 */
export function forbiddenMatch(command: string, forbidden: string[]): string | undefined {
  const c = command.trim().toLowerCase().replace(/\s+/g, ' ');
  if (c === '') return undefined;
  // configuration mode runs an exec command after `do` (IOS, FRR) or `run` (Junos): judge what follows too
  const exec = /^(do|run) (.+)$/.exec(c)?.[2];
  return matchOne(c, forbidden) ?? (exec !== undefined ? matchOne(exec, forbidden) : undefined);
}

function matchOne(c: string, forbidden: string[]): string | undefined {
  const words = c.split(' ');
  for (const f of forbidden) {
    const fl = f.trim().toLowerCase().replace(/\s+/g, ' ');
    if (fl === '') continue;
    if (c.startsWith(fl)) return f;
    const fw = fl.split(' ');
    if (words.length < fw.length) continue;
    const abbreviated = fw.every((w, i) => {
      const typed = words[i]!;
      return typed.length >= Math.min(2, w.length) && (w.startsWith(typed) || (i === fw.length - 1 && typed.startsWith(w)));
    });
    if (abbreviated) return f;
  }
  return undefined;
}

/**
 * The lines of one command entry: a model may send several in one string ("a\nb"); each is
 * its own command, filtered on its own — otherwise the filters see only the first line and
 * the device runs them all.
 */
export function commandLines(entry: string): string[] {
  return entry.split(/\r\n|\r|\n/).filter((l) => l.trim() !== '');
}

/**
 * Why a command holding a control character (C0, DEL, C1) is never sent, or undefined. The
 * device's line editor acts on them: Ctrl-U erases what the filters checked and a tab
 * completes, so `show \u0015reload` would pass as a show command and reload the router.
 */
export function controlCharRefusal(command: string): string | undefined {
  const m = /[\u0000-\u001f\u007f-\u009f]/.exec(command);
  if (!m) return undefined;
  const code = `U+${m[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
  return `control character ${code} in the command (a command is one line of plain text)`;
}

const READ_VERBS: Record<'network' | 'vpcs' | 'linux', RegExp> = {
  // show / display and their abbreviations (sh, sho, dis, disp…), ping, plus the
  // few exec commands that only print (`who`, `traceroute` is caught by the forbidden list).
  network: /^(s|sh|sho|show|dis|disp|displ|displa|display|ping|who|whoami)(\s|$)/i,
  vpcs: /^(sh|sho|show|ping|arp|ver|version|history|hist)(\s|$)/i,
  linux:
    /^(ip\s+(-\S+\s+)*(a|ad|addr|address|r|ro|route|l|li|link|n|neigh|neighbor)(\s+(show|list|get)\b.*|\s*)$|ifconfig\s*\S*\s*$|route(\s+-n)?\s*$|netstat\b|ss\b|ping\b|cat\b|ls\b|hostname\s*$|uname\b|arp\b|who(ami)?\b)/i,
};

/** True when a command only observes (for execute_multiple_device_commands). */
export function isReadOnly(command: string, platform: PlatformName | undefined): boolean {
  const c = command.trim();
  if (c === '') return false;
  if (platform === 'vpcs') return READ_VERBS.vpcs.test(c);
  if (platform === 'linux') return READ_VERBS.linux.test(c) && !/[;&|`$<>]/.test(c);
  if (/\|\s*(redirect|tee|append)/i.test(c)) return false;
  return READ_VERBS.network.test(c);
}

/**
 * Platform drivers: how a CLI family looks (prompts, pager, errors) and how to
 * drive it (disable paging, enter and leave configuration mode). Adding a
 * platform = adding one entry here.
 */
import { escapeRegExp } from './text.js';

export type PlatformName = 'frr' | 'cisco_ios' | 'huawei' | 'juniper' | 'vpcs' | 'linux';

export interface Driver {
  name: PlatformName;
  /** matches any prompt of this family on one line; group 1 = host name */
  anyPrompt: RegExp;
  /** the prompt of one host (learned at wake), in any mode */
  promptFor(host: string, line: string): RegExp;
  /** true when the prompt says we are in configuration mode */
  inConfig(prompt: string): boolean;
  /** true when the prompt is an unprivileged exec mode (Cisco `R1>`) */
  unprivileged?(prompt: string): boolean;
  disablePaging: string[];
  configEnter?: string;
  configExit?: string;
  /** lines that mean the device refused the command */
  errors: RegExp[];
  /** extra error lines that count only inside configuration mode */
  configErrors?: RegExp[];
  /** a command that renames the device (the prompt changes after it) */
  renames?: RegExp;
  /** the exec command that prints the device's whole configuration (checkpoints); absent: none to take */
  capture?: string;
}

const HOST = '[A-Za-z0-9_][\\w.\\-/:]*';

const COMMON_ERRORS = [
  // `Unknown action`: FRR's answer to a pipe it does not know (`show version | touch x`)
  /^\s*% ?(Invalid input|Unknown command|Command incomplete|Incomplete command|Ambiguous command|Invalid command|Unknown action)/i,
  /^\s*Error: /,
];

const ciscoLike = (name: 'frr' | 'cisco_ios'): Driver => ({
  name,
  anyPrompt: new RegExp(`^(${HOST})(?:\\([\\w.\\-:/ ]+\\))?[#>] ?$`),
  promptFor: (host) => new RegExp(`^${escapeRegExp(host)}(?:\\([\\w.\\-:/ ]+\\))?[#>] ?$`),
  inConfig: (p) => /\(\s*config[^)]*\)#\s*$/.test(p),
  unprivileged: (p) => /^[^(]*>\s*$/.test(p),
  disablePaging: name === 'frr' ? ['terminal length 0'] : ['terminal length 0', 'terminal width 511'],
  configEnter: 'configure terminal',
  configExit: 'end',
  errors: COMMON_ERRORS,
  // In configuration mode FRR and IOS report every refusal with a leading `%`.
  configErrors: [/^\s*% /],
  renames: /^\s*hostname\s+\S+/i,
  capture: 'show running-config',
});

export const DRIVERS: Record<PlatformName, Driver> = {
  frr: ciscoLike('frr'),
  cisco_ios: ciscoLike('cisco_ios'),
  huawei: {
    name: 'huawei',
    anyPrompt: new RegExp(`^[<\\[]~?\\*?(${HOST}?)(?:-[\\w.\\-:/]+)*[>\\]] ?$`),
    promptFor: (host) => new RegExp(`^[<\\[]~?\\*?${escapeRegExp(host)}(?:-[\\w.\\-:/]+)*[>\\]] ?$`),
    inConfig: (p) => p.trim().startsWith('['),
    disablePaging: ['screen-length 0 temporary'],
    configEnter: 'system-view',
    configExit: 'return',
    errors: [...COMMON_ERRORS, /^\s*Error:/i],
    renames: /^\s*sysname\s+\S+/i,
    capture: 'display current-configuration',
  },
  juniper: {
    name: 'juniper',
    anyPrompt: new RegExp(`^(?:[\\w.\\-]+)@(${HOST})[>#%] ?$`),
    promptFor: (host) => new RegExp(`^[\\w.\\-]+@${escapeRegExp(host)}[>#%] ?$`),
    inConfig: (p) => p.trim().endsWith('#'),
    disablePaging: ['set cli screen-length 0'],
    configEnter: 'configure',
    configExit: 'exit configuration-mode',
    errors: [/^\s*(syntax error|unknown command|error:)/i, ...COMMON_ERRORS],
    renames: /^\s*set system host-name\s+\S+/i,
    capture: 'show configuration',
  },
  vpcs: {
    name: 'vpcs',
    anyPrompt: new RegExp(`^(${HOST})> ?$`),
    promptFor: (host) => new RegExp(`^${escapeRegExp(host)}> ?$`),
    inConfig: () => false,
    disablePaging: [],
    errors: [
      /^\s*(Invalid command|Bad command|Invalid address|Invalid (ip|gateway|argument|option))/i,
      /^\s*Command not found/i,
      ...COMMON_ERRORS,
    ],
    renames: /^\s*set\s+pcname\s+\S+/i,
    // address, mask, gateway and DNS: what a VPCS PC has as configuration (src/checkpoints/vpcs.ts)
    capture: 'show ip',
  },
  linux: {
    name: 'linux',
    anyPrompt: /^(?:([\w.-]+)@([\w.-]+)(?::[^\n]*)?|[~/][^\n]*|\S*)\s?[$#] ?$/,
    promptFor: (_host, line) => {
      // A shell prompt carries the directory; keep the user@host part fixed.
      const m = /^([\w.-]+@[\w.-]+)/.exec(line);
      return m ? new RegExp(`^${escapeRegExp(m[1]!)}(?::[^\\n]*)?\\s?[$#] ?$`) : /^[^\n]*[$#] ?$/;
    },
    inConfig: () => false,
    disablePaging: [],
    errors: [/: command not found$/, /^\S+: (not found|can't open|No such file or directory)/],
  },
};

/** Maps names seen in topologies, tags and Netmiko device types onto a driver. */
export function platformFromName(name: string | null | undefined): PlatformName | undefined {
  if (!name) return undefined;
  const n = name.toLowerCase().replace(/_(telnet|ssh|serial)$/, '');
  if (n in DRIVERS) return n as PlatformName;
  if (/vpcs/.test(n)) return 'vpcs';
  if (/\bfrr|frrouting/.test(n)) return 'frr';
  if (/huawei|vrp|ce\d{3,}|ne40|usg\d|\bar\d{3,}/.test(n)) return 'huawei';
  if (/juniper|junos|vsrx|vmx|vqfx|vex\b/.test(n)) return 'juniper';
  if (/cisco|ios|iou|c7200|c3[67]\d\d|csr1000|cat[89]k|nx-?os|arista|eos|ruijie|\bxe\b|\bxr\b/.test(n)) return 'cisco_ios';
  if (/linux|ubuntu|debian|alpine|centos|docker|toolbox|busybox/.test(n)) return 'linux';
  return undefined;
}

export interface DetectedPrompt {
  platform: PlatformName;
  host: string;
}

/**
 * Guesses the platform from one prompt line. `R1>`/`R1#` is Cisco-like (FRR and
 * IOS look alike; the difference does not matter for driving them); a `>`
 * prompt named like a VPCS PC is VPCS only when nothing says otherwise.
 */
export function detectPrompt(line: string, hint?: PlatformName): DetectedPrompt | undefined {
  const order: PlatformName[] = hint ? [hint] : ['huawei', 'juniper', 'cisco_ios', 'linux'];
  for (const p of order) {
    const m = DRIVERS[p].anyPrompt.exec(line);
    if (!m) continue;
    const host = p === 'juniper' ? m[1]! : (m[1] ?? line.trim());
    if (!hint && p === 'cisco_ios' && /^(VPCS|PC\d*)>\s?$/i.test(line)) return { platform: 'vpcs', host };
    return { platform: p, host };
  }
  return undefined;
}

/** ` --More-- `, `---- More ----`, `---(more 45%)---`, `-- More --`, `<--- More --->` */
export const PAGER = /(?:^|\s)(?:-{2,4} ?More ?-{2,4}|-{2,3}\(more(?: \d+%)?\)-{2,3}|<-+ More -+>)\s*$/i;

/** Interactive questions and the answer meaning yes / no for each. */
export const CONFIRMATIONS: { re: RegExp; yes: string; no: string }[] = [
  { re: /\[confirm\]\s*$/i, yes: '', no: 'n' },
  { re: /\[yes\/no(?:\/[a-z]+)?\]\s*:?\s*$/i, yes: 'yes', no: 'no' },
  { re: /[[(]y\/n[\])]\s*[?:]?\s*$/i, yes: 'y', no: 'n' },
  { re: /\[Y\/N\]\s*:?\s*$/, yes: 'y', no: 'n' },
];

/** The console is asking for credentials instead of showing a prompt. */
export const LOGIN = /(?:username|login|password)\s*:\s*$/i;

/**
 * What each device check needs on a given platform: the read-only commands to
 * run and how to decide from their output. A kind that does not apply to the
 * platform has no plan but an error naming both; output that cannot be read is
 * an error with the reason, never a pass.
 */
import type { PlatformName } from '../devices/drivers.js';
import type { CommandResult } from '../devices/types.js';
import {
  configSection,
  parseBgpSummary,
  parseFrrInterfaceBrief,
  parseIosInterfaceBrief,
  parseIosPing,
  parseIosRoutes,
  parseLinuxInterfaces,
  parseLinuxRoutes,
  parseOspfNeighbors,
  parseUnixPing,
  parseVpcsPing,
  sameInterface,
  type InterfaceRow,
  type PingVerdict,
  type RouteRow,
} from './parse.js';
import { kindOf, type Check, type CheckKind } from './schema.js';
import { nearestLine } from './nearest-line.js';

export type CheckStatus = 'pass' | 'fail' | 'error';
export interface Verdict {
  status: CheckStatus;
  evidence: string;
}

/** FRR's vtysh `ping` runs until Ctrl-C: it gets this long, then the engine interrupts it. */
export const FRR_PING_WINDOW_MS = 2_500;
const PING_COUNT = 3;

export type Family = 'ios' | 'vpcs' | 'linux' | 'other';

export function familyOf(p: PlatformName): Family {
  if (p === 'frr' || p === 'cisco_ios') return 'ios';
  if (p === 'vpcs' || p === 'linux') return p;
  return 'other';
}

/** Which kinds each family's output can decide; `command` works everywhere. */
const APPLIES: Record<Family, readonly CheckKind[]> = {
  ios: ['interface', 'ospf_neighbor', 'bgp_peer', 'route', 'ping', 'config', 'command'],
  vpcs: ['ping', 'command'],
  linux: ['interface', 'route', 'ping', 'command'],
  other: ['command'],
};

export interface Plan {
  /** commands run with the usual command timeout */
  commands: string[];
  /** commands that only stop on Ctrl-C (FRR ping): run with FRR_PING_WINDOW_MS, a timeout is their normal end */
  bounded: string[];
  decide(result: (command: string) => CommandResult | undefined): Verdict;
}

const error = (evidence: string): Verdict => ({ status: 'error', evidence });
const pass = (evidence: string): Verdict => ({ status: 'pass', evidence });
const fail = (evidence: string): Verdict => ({ status: 'fail', evidence });

/** The plan of one command run as usual whose output decides; no output is its own verdict (outputOf). */
function readPlan(command: string, decide: (out: string) => Verdict): Plan {
  return {
    commands: [command],
    bounded: [],
    decide(get) {
      const out = outputOf(get(command), command);
      return typeof out === 'string' ? decide(out) : out;
    },
  };
}

/** A command's output, or the error verdict saying why there is none. */
function outputOf(r: CommandResult | undefined, command: string, timeoutIsEnd = false): string | Verdict {
  if (!r) return error(`"${command}" was not run`);
  if (r.status === 'success' || (timeoutIsEnd && r.status === 'timeout')) return r.output;
  return error(`"${command}": ${r.error ?? r.status}`);
}

function firstLine(text: string): string {
  return (
    text
      .split(/\r?\n/)
      .find((l) => l.trim() !== '')
      ?.trim() ?? '(no output)'
  );
}

function interfacePlan(c: Extract<Check, { interface: unknown }>['interface'], platform: PlatformName): Plan {
  const linux = platform === 'linux';
  const commands = linux
    ? ['ip -o link show', 'ip -o addr show']
    : [platform === 'frr' ? 'show interface brief' : 'show ip interface brief'];
  return {
    commands,
    bounded: [],
    decide(get) {
      const outs = commands.map((cmd) => outputOf(get(cmd), cmd));
      const bad = outs.find((o): o is Verdict => typeof o !== 'string');
      if (bad) return bad;
      const texts = outs as string[];
      const rows: InterfaceRow[] | undefined = linux
        ? parseLinuxInterfaces(texts[0]!, texts[1]!)
        : platform === 'frr'
          ? parseFrrInterfaceBrief(texts[0]!)
          : parseIosInterfaceBrief(texts[0]!);
      if (!rows) return error(`cannot read "${commands.join('", "')}": ${firstLine(texts[0]!)}`);
      const row = rows.find((r) => sameInterface(r.name, c.name));
      if (!row) return fail(`no interface ${c.name} (${rows.map((r) => r.name).join(', ') || 'none listed'})`);
      if (c.state && row.state !== c.state) return fail(row.line);
      if (c.ip) {
        const want = c.ip;
        // IOS lists the address without its length: compare the address part only there.
        const has = row.addresses.some(
          (a) => a === want || (!a.includes('/') && a === want.split('/')[0]) || (!want.includes('/') && a.split('/')[0] === want),
        );
        if (!has) return fail(row.line);
      }
      return pass(row.line);
    },
  };
}

function routePlan(c: Extract<Check, { route: unknown }>['route'], platform: PlatformName): Plan {
  const command = platform === 'linux' ? 'ip route show' : 'show ip route';
  return readPlan(command, (out) => {
    const rows: RouteRow[] | undefined = platform === 'linux' ? parseLinuxRoutes(out) : parseIosRoutes(out);
    if (!rows) return error(`cannot read "${command}": ${firstLine(out)}`);
    const candidates = rows.filter((r) => r.prefix === c.prefix && (!c.protocol || r.protocol === c.protocol) && r.selected);
    const match = candidates.find((r) => !c.via || r.via.includes(c.via));
    if (!c.present) {
      return match ? fail(match.line) : pass(`no ${c.protocol ?? ''}${c.protocol ? ' ' : ''}route to ${c.prefix} in "${command}"`);
    }
    if (match) return pass(match.line);
    const other = candidates[0] ?? rows.find((r) => r.prefix === c.prefix);
    return fail(other ? other.line : `no route to ${c.prefix} in "${command}"`);
  });
}

function neighborPlan(c: Extract<Check, { ospf_neighbor: unknown }>['ospf_neighbor']): Plan {
  const command = 'show ip ospf neighbor';
  return readPlan(command, (out) => {
    const rows = parseOspfNeighbors(out);
    const row = rows.find((r) => r.id === c.neighbor) ?? rows.find((r) => r.address === c.neighbor);
    if (!row) {
      const listed = rows.map((r) => `${r.id} ${r.state}`).join(', ');
      return fail(`no OSPF neighbour ${c.neighbor} (${listed || firstLine(out)})`);
    }
    return row.state.toLowerCase() === c.state.toLowerCase() ? pass(row.line) : fail(row.line);
  });
}

function bgpPlan(c: Extract<Check, { bgp_peer: unknown }>['bgp_peer']): Plan {
  const command = 'show ip bgp summary';
  return readPlan(command, (out) => {
    const rows = parseBgpSummary(out);
    if (!rows) return error(`cannot read "${command}" (is BGP running?): ${firstLine(out)}`);
    const row = rows.find((r) => r.peer === c.peer);
    if (!row) return fail(`no BGP peer ${c.peer} (${rows.map((r) => r.peer).join(', ') || 'no peers'})`);
    return row.state.toLowerCase() === c.state.toLowerCase() ? pass(row.line) : fail(row.line);
  });
}

function configPlan(c: Extract<Check, { config: unknown }>['config']): Plan {
  const command = 'show running-config';
  const norm = (s: string) => s.trim().replace(/\s+/g, ' ').toLowerCase();
  return readPlan(command, (out) => {
    const block = configSection(out, c.section);
    if (!block) return c.has ? fail(`no "${c.section}" section in the running config`) : pass(`no "${c.section}" section`);
    const find = (want: string) => block.find((l) => norm(l).includes(norm(want)));
    if (c.has) {
      const hit = find(c.has);
      if (!hit) return fail(`"${c.has}" not in ${c.section ? `"${c.section}"` : 'the running config'}`);
      if (!c.lacks) return pass(hit.trim());
    }
    if (c.lacks) {
      const hit = find(c.lacks);
      if (hit) return fail(hit.trim());
      return pass(`"${c.lacks}" not in ${c.section ? `"${c.section}"` : 'the running config'}`);
    }
    return error('config check without has/lacks');
  });
}

function pingPlan(c: Extract<Check, { ping: unknown }>['ping'], platform: PlatformName): Plan {
  const frr = platform === 'frr';
  const command =
    platform === 'vpcs'
      ? `ping ${c.to} -c ${PING_COUNT}`
      : platform === 'linux'
        ? `ping -c ${PING_COUNT} -W 1 ${c.to}`
        : frr
          ? `ping ${c.to}`
          : `ping ${c.to} repeat ${PING_COUNT}`;
  return {
    commands: frr ? [] : [command],
    bounded: frr ? [command] : [],
    decide(get) {
      const out = outputOf(get(command), command, frr);
      if (typeof out !== 'string') return out;
      const v: PingVerdict | undefined =
        platform === 'vpcs'
          ? parseVpcsPing(out, PING_COUNT)
          : platform === 'cisco_ios'
            ? parseIosPing(out)
            : parseUnixPing(out, frr ? Math.ceil(FRR_PING_WINDOW_MS / 1000) : PING_COUNT);
      if (!v) return error(`cannot read "${command}": ${firstLine(out)}`);
      const rate = v.sent > 0 ? (100 * v.received) / v.sent : 0;
      return rate >= c.min_success && (c.min_success > 0 || v.sent > 0) ? pass(v.line) : fail(v.line);
    },
  };
}

function commandPlan(c: Extract<Check, { command: unknown }>['command']): Plan {
  return {
    commands: [c.run],
    bounded: [],
    decide(get) {
      const out = outputOf(get(c.run), c.run);
      if (typeof out !== 'string') return out;
      const ls = out.split(/\r?\n/);
      const e = c.expect;
      let evidence: string | undefined;
      if (e.contains !== undefined) {
        const hit = ls.find((l) => l.includes(e.contains!));
        // the evidence is the line where the text was expected (the IP/MASK line of a changed address), not the first
        if (!hit) return fail(`"${e.contains}" not in the output (nearest: ${nearestLine(ls, e.contains) ?? firstLine(out)})`);
        evidence = hit.trim();
      }
      if (e.regex !== undefined) {
        const m = new RegExp(e.regex, 'm').exec(out);
        if (!m) return fail(`/${e.regex}/ does not match the output (${firstLine(out)})`);
        evidence ??= ls.find((l) => l.includes(m[0].split('\n')[0]!))?.trim() ?? m[0];
      }
      if (e.not_contains !== undefined) {
        const hit = ls.find((l) => l.includes(e.not_contains!));
        if (hit) return fail(hit.trim());
        evidence ??= `"${e.not_contains}" not in the output`;
      }
      return pass(evidence ?? firstLine(out));
    },
  };
}

/** The plan of a device check on a platform, or why the check cannot run there. */
export function planCheck(c: Check, platform: PlatformName): Plan | { error: string } {
  const kind = kindOf(c);
  if (!APPLIES[familyOf(platform)].includes(kind)) return { error: `${kind} does not apply to platform ${platform}` };
  if ('interface' in c) return interfacePlan(c.interface, platform);
  if ('route' in c) return routePlan(c.route, platform);
  if ('ospf_neighbor' in c) return neighborPlan(c.ospf_neighbor);
  if ('bgp_peer' in c) return bgpPlan(c.bgp_peer);
  if ('config' in c) return configPlan(c.config);
  if ('ping' in c) return pingPlan(c.ping, platform);
  if ('command' in c) return commandPlan(c.command);
  return { error: `${kind} is not a device check` };
}

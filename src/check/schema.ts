/**
 * The check-file schema: a lab's intended state as a list of checks, each of one
 * kind (node, link, interface, ospf_neighbor, bgp_peer, route, ping, config,
 * command). The same schema serves `gns3-copilot check`, the `verify_lab` tool
 * and the fault ledger's repair checks.
 */
import { z } from 'zod';
import { controlCharRefusal } from '../devices/filter.js';

const name = z.string().trim().min(1);
const ipv4 = z.string().regex(/^\d{1,3}(\.\d{1,3}){3}$/, 'an IPv4 address like 10.0.0.1');
const prefix = z.string().regex(/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/, 'a prefix like 10.0.1.0/24');
const endpoint = z.string().regex(/^[^:\s]+(:\S+)?$/, 'NODE or NODE:PORT, e.g. "R1:eth0"');

export const nodeCheck = z.strictObject({ name, status: z.enum(['started', 'stopped', 'suspended']).default('started') });
export const linkCheck = z.strictObject({
  a: endpoint,
  b: endpoint,
  /** true: the link must carry no packet filter (loss, delay, corruption, BPF) */
  clean: z.boolean().optional(),
});
export const interfaceCheck = z.strictObject({
  device: name,
  name,
  state: z.enum(['up', 'down']).optional(),
  ip: z
    .string()
    .regex(/^\d{1,3}(\.\d{1,3}){3}(\/\d{1,2})?$/, 'an address like 10.0.1.1/24')
    .optional(),
});
export const ospfNeighborCheck = z.strictObject({ device: name, neighbor: ipv4, state: z.string().trim().min(1).default('Full') });
export const bgpPeerCheck = z.strictObject({ device: name, peer: ipv4, state: z.string().trim().min(1).default('Established') });
export const routeCheck = z.strictObject({
  device: name,
  prefix,
  via: ipv4.optional(),
  protocol: z.enum(['connected', 'static', 'ospf', 'bgp', 'rip', 'isis', 'eigrp', 'kernel', 'local']).optional(),
  /** false: the route must be absent */
  present: z.boolean().default(true),
});
export const pingCheck = z.strictObject({ from: name, to: ipv4, min_success: z.number().int().min(0).max(100).default(100) });
export const configCheck = z
  .strictObject({
    device: name,
    /** the first line of a block, e.g. "router ospf" or "interface eth0"; absent = the whole configuration */
    section: z.string().trim().min(1).optional(),
    has: z.string().trim().min(1).optional(),
    lacks: z.string().trim().min(1).optional(),
  })
  .refine((c) => c.has !== undefined || c.lacks !== undefined, { message: 'config needs "has" or "lacks"' });
export const expectSchema = z
  .strictObject({
    contains: z.string().min(1).optional(),
    not_contains: z.string().min(1).optional(),
    regex: z
      .string()
      .min(1)
      .refine(
        (r) => {
          try {
            new RegExp(r, 'm');
            return true;
          } catch {
            return false;
          }
        },
        { message: 'not a valid regular expression' },
      )
      .optional(),
  })
  .refine((e) => e.contains !== undefined || e.not_contains !== undefined || e.regex !== undefined, {
    message: 'expect needs contains, not_contains or regex',
  });
/** one line of plain text: the device engine never sends a control character, nor a second line hidden in one command */
const oneCommand = z
  .string()
  .trim()
  .min(1)
  .refine((c) => controlCharRefusal(c) === undefined, { message: 'one command on one line, without control characters' });
export const commandCheck = z.strictObject({ device: name, run: oneCommand, expect: expectSchema });

export const KINDS = ['node', 'link', 'interface', 'ospf_neighbor', 'bgp_peer', 'route', 'ping', 'config', 'command'] as const;
export type CheckKind = (typeof KINDS)[number];

const common = { name: z.string().trim().min(1).optional(), points: z.number().int().min(0).max(1000).default(1) };

/** One check: exactly one kind key, plus optional name and points. */
export const checkSchema = z.union([
  z.strictObject({ ...common, node: nodeCheck }),
  z.strictObject({ ...common, link: linkCheck }),
  z.strictObject({ ...common, interface: interfaceCheck }),
  z.strictObject({ ...common, ospf_neighbor: ospfNeighborCheck }),
  z.strictObject({ ...common, bgp_peer: bgpPeerCheck }),
  z.strictObject({ ...common, route: routeCheck }),
  z.strictObject({ ...common, ping: pingCheck }),
  z.strictObject({ ...common, config: configCheck }),
  z.strictObject({ ...common, command: commandCheck }),
]);

/** The most checks one file holds: a bound on what a run sends, a bad file beyond it (exit 2). */
export const MAX_CHECKS = 2000;

/** The longest stage name: a heading in the table, a JUnit testsuite, a `--stage` argument. */
export const MAX_STAGE_NAME = 100;

/** A named group of checks (`stages: [{name: "1 addressing", checks: […]}, …]`), run alone with `--stage`. */
export const checkStageSchema = z.strictObject({
  name: z.string().trim().min(1).max(MAX_STAGE_NAME),
  checks: z.array(checkSchema).min(1),
});

/**
 * A parsed file: `checks` is every check in file order (a staged file's stages one after another),
 * so what reads only `checks` (verify_lab, repair checks) reads a staged file whole.
 */
export const checkFileSchema = z.strictObject({
  project: z.string().trim().min(1).optional(),
  checks: z.array(checkSchema).min(1).max(MAX_CHECKS),
  stages: z.array(checkStageSchema).min(1).optional(),
});

export type CheckInput = z.input<typeof checkSchema>;
export type Check = z.output<typeof checkSchema>;
export type CheckFile = z.output<typeof checkFileSchema>;
export type CheckStage = z.output<typeof checkStageSchema>;

export type NodeCheck = z.output<typeof nodeCheck>;
export type LinkCheck = z.output<typeof linkCheck>;
export type InterfaceCheck = z.output<typeof interfaceCheck>;
export type OspfNeighborCheck = z.output<typeof ospfNeighborCheck>;
export type BgpPeerCheck = z.output<typeof bgpPeerCheck>;
export type RouteCheck = z.output<typeof routeCheck>;
export type PingCheck = z.output<typeof pingCheck>;
export type ConfigCheck = z.output<typeof configCheck>;
export type CommandCheck = z.output<typeof commandCheck>;

/** The kind of a parsed check (the one key besides name and points). */
export function kindOf(c: Check): CheckKind {
  for (const k of KINDS) if (k in c) return k;
  throw new Error('check without a kind');
}

/** The body of a check of a known kind. */
export function bodyOf(c: Check): Record<string, unknown> {
  return (c as Record<string, unknown>)[kindOf(c)] as Record<string, unknown>;
}

/** The device a check runs on (ping: `from`), or undefined for topology checks. */
export function deviceOf(c: Check): string | undefined {
  if ('node' in c || 'link' in c) return undefined;
  if ('ping' in c) return c.ping.from;
  return (bodyOf(c) as { device: string }).device;
}

/** A readable default name: "R1 ospf_neighbor 10.255.255.2 Full". */
export function defaultName(c: Check): string {
  if ('node' in c) return `node ${c.node.name} ${c.node.status}`;
  if ('link' in c) return `link ${c.link.a} - ${c.link.b}${c.link.clean ? ' clean' : ''}`;
  if ('interface' in c) {
    const i = c.interface;
    return `${i.device} interface ${i.name}${i.state ? ` ${i.state}` : ''}${i.ip ? ` ${i.ip}` : ''}`;
  }
  if ('ospf_neighbor' in c) return `${c.ospf_neighbor.device} ospf neighbor ${c.ospf_neighbor.neighbor} ${c.ospf_neighbor.state}`;
  if ('bgp_peer' in c) return `${c.bgp_peer.device} bgp peer ${c.bgp_peer.peer} ${c.bgp_peer.state}`;
  if ('route' in c) {
    const r = c.route;
    return `${r.device} ${r.present ? '' : 'no '}route ${r.prefix}${r.via ? ` via ${r.via}` : ''}${r.protocol ? ` (${r.protocol})` : ''}`;
  }
  if ('ping' in c) return `ping ${c.ping.from} -> ${c.ping.to}`;
  if ('config' in c) {
    const x = c.config;
    return `${x.device} config${x.section ? ` [${x.section}]` : ''}${x.has ? ` has "${x.has}"` : ''}${x.lacks ? ` lacks "${x.lacks}"` : ''}`;
  }
  return `${c.command.device}: ${c.command.run}`;
}

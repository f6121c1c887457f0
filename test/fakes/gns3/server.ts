/**
 * A fake GNS3 controller (v2 or v3) over real HTTP on 127.0.0.1, speaking the
 * subset of the API the copilot uses with the real servers' JSON shapes,
 * status codes and error bodies (v2 `{message,status}`, v3 `{message}`/`{detail}`;
 * src/gns3/errors.ts reads them all).
 *
 *   const fake = await startFakeGns3({ api: 'v3', users: { admin: 'admin' } });
 *   const pid = fake.addProject({ name: 'lab' });
 *   fake.addNode({ name: 'R1', node_type: 'qemu', console_host: lab.R1.consoleHost,
 *                  console: lab.R1.consolePort, status: 'started', template_name: 'FRR', tags: ['device_type:frr'] });
 *   fake.addLink({ a: 'R1:e0', b: 'R2:e0' });
 *   settings.server = fake.url;  …  await fake.close();
 *
 * Tags are stored where a real server keeps free text about a node: `properties.usage`.
 * Knobs: `statusDelayMs` (node status changes that long after start/stop, to test polling),
 * `inject()` (errors, slow or non-JSON answers, dropped connections), `setLinkPcap()`
 * (bytes a capture stream replays), `revokeTokens()` (simulate an expired JWT).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { FakeNotifications } from './notifications.js';

export type FakeApi = 'v2' | 'v3';

export interface FakeGns3Options {
  api: FakeApi;
  /** v3: accounts for /access/users/authenticate; v2: enables HTTP basic auth */
  users?: Record<string, string>;
  version?: string;
  /** delay before a node's status follows a start/stop/suspend (default 0) */
  statusDelayMs?: number;
  consoleHost?: string;
  /**
   * What `GET /computes` lists (default: v2 its local compute named "vm", v3 nothing, as the
   * real servers do). A node created on a compute gets that compute's host as console_host.
   */
  computes?: FakeCompute[];
  /** the auto_close delay after the last project-stream listener left (the real 5 s by default) */
  closeDelayMs?: number;
  /** a notification stream's ping interval when nothing else happens (the real 5 s by default) */
  pingMs?: number;
}

export interface FakeCompute {
  compute_id: string;
  name: string;
  host: string;
  port?: number;
  connected?: boolean;
}

export interface InjectRule {
  method?: string;
  /** matched against the path without query, e.g. /v2/projects/<id>/nodes */
  path: string | RegExp;
  /** how many requests it applies to (default 1; Infinity for all) */
  times?: number;
  status?: number;
  body?: string;
  contentType?: string;
  /** answer after this delay; with no status, the normal answer is delayed */
  delayMs?: number;
  /** close the socket without answering */
  destroy?: boolean;
}

export interface SeedNode {
  name: string;
  node_type: string;
  console_host?: string | null;
  console?: number | null;
  console_type?: string | null;
  status?: 'started' | 'stopped' | 'suspended';
  template_name?: string;
  tags?: string[];
  /** number of Ethernet ports or explicit port names */
  ports?: number | string[];
  x?: number;
  y?: number;
  project?: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

type Json = Record<string, unknown>;

interface Port {
  adapter_number: number;
  port_number: number;
  name: string;
  short_name: string;
  link_type: string;
  data_link_types: Record<string, string>;
}

interface Node extends Json {
  node_id: string;
  name: string;
  node_type: string;
  status: string;
  ports: Port[];
  x: number;
  y: number;
}

interface Link extends Json {
  link_id: string;
  nodes: { node_id: string; adapter_number: number; port_number: number; label: Json }[];
  filters: Record<string, unknown[]>;
  capturing: boolean;
}

interface Project {
  data: Json & { project_id: string; name: string; status: string };
  nodes: Map<string, Node>;
  links: Map<string, Link>;
}

interface Template extends Json {
  template_id: string;
  name: string;
  template_type: string;
  category: string;
  default_name_format: string;
}

const BUILTINS: [name: string, type: string, category: string, fmt: string, v2: string, v3: string][] = [
  ['Cloud', 'cloud', 'guest', 'Cloud{0}', '39e257dc-8412-3174-b6b3-0ee3ed6a43e9', 'b6ed2e82-d5aa-5a86-b6dd-8b9dd1c66800'],
  ['NAT', 'nat', 'guest', 'NAT{0}', 'df8f4ea9-33b7-3e96-86a2-c39bc9bb649c', '2d7eb722-90e8-56c1-8dfa-a30d79847984'],
  ['VPCS', 'vpcs', 'guest', 'PC{0}', '19021f99-e36f-394d-b4a1-8aaa902ab9cc', '52136454-1f50-590a-94e4-816bd02d1062'],
  [
    'Ethernet switch',
    'ethernet_switch',
    'switch',
    'Switch{0}',
    '1966b864-93e7-32d5-965f-001384eec461',
    '92a43283-9c7e-5a68-9695-1f05a2e8dd05',
  ],
  ['Ethernet hub', 'ethernet_hub', 'switch', 'Hub{0}', 'b4503ea9-d6b6-3695-9fe4-1db3b39290b0', '8ed8d072-b183-541c-81ec-6e106c3a5a2a'],
  [
    'Frame Relay switch',
    'frame_relay_switch',
    'switch',
    'FRSW{0}',
    'dd0f6f3a-ba58-3249-81cb-a1dd88407a47',
    '6ae48470-232f-50a4-a0df-5fb07e6ecba7',
  ],
  ['ATM switch', 'atm_switch', 'switch', 'ATMSW{0}', 'aaa764e2-b383-300f-8a0e-3493bbfdb7d2', 'fe3f642f-1398-562b-a3a8-bb93d4b2ee16'],
];

export const AVAILABLE_FILTERS: {
  type: string;
  name: string;
  description: string;
  parameters: { name: string; type: string; minimum?: number; maximum?: number; unit?: string }[];
}[] = [
  {
    type: 'frequency_drop',
    name: 'Frequency drop',
    description: 'It will drop everything with a -1 frequency, drop every Nth packet with a positive frequency, or drop nothing',
    parameters: [{ name: 'Frequency', minimum: -1, maximum: 32767, type: 'int', unit: 'th packet' }],
  },
  {
    type: 'packet_loss',
    name: 'Packet loss',
    description: 'The percentage represents the chance for a packet to be lost',
    parameters: [{ name: 'Chance', minimum: 0, maximum: 100, type: 'int', unit: '%' }],
  },
  {
    type: 'delay',
    name: 'Delay',
    description: 'Delay packets in milliseconds. You can add jitter in milliseconds (+/-) of the delay',
    parameters: [
      { name: 'Latency', minimum: 0, maximum: 32767, unit: 'ms', type: 'int' },
      { name: 'Jitter (-/+)', minimum: 0, maximum: 32767, unit: 'ms', type: 'int' },
    ],
  },
  {
    type: 'corrupt',
    name: 'Corrupt',
    description: 'The percentage represents the chance for a packet to be corrupted',
    parameters: [{ name: 'Chance', minimum: 0, maximum: 100, unit: '%', type: 'int' }],
  },
  {
    type: 'bpf',
    name: 'Berkeley Packet Filter (BPF)',
    description: 'This filter will drop any packet matching a BPF expression. Put one expression per line',
    parameters: [{ name: 'Filters', type: 'text' }],
  },
];

const ALWAYS_ON = new Set(['ethernet_switch', 'ethernet_hub', 'cloud', 'nat', 'frame_relay_switch', 'atm_switch']);

class HttpFail extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly raw?: { body: string; contentType: string },
  ) {
    super(message);
  }
}

/** Python-repr of a pydantic error list, as v3 puts it in `message`. */
function pyRepr(type: string, loc: string[], msg: string, input: string): string {
  return `[{'type': '${type}', 'loc': (${loc.map((l) => `'${l}'`).join(', ')}${loc.length === 1 ? ',' : ''}), 'msg': '${msg}', 'input': ${input}}]`;
}

export interface FakeGns3 {
  url: string;
  api: FakeApi;
  requests: RecordedRequest[];
  addProject(p: { name: string; status?: 'opened' | 'closed'; project_id?: string; auto_close?: boolean }): string;
  addTemplate(t: {
    name: string;
    template_type: string;
    category?: string;
    default_name_format?: string;
    adapters?: number;
    usage?: string;
    /** the compute its nodes go to (default "local"; null like the builtins) */
    compute_id?: string | null;
  }): string;
  addNode(n: SeedNode): Node;
  addLink(l: { a: string; b: string; filters?: Record<string, unknown[]>; project?: string }): Link;
  project(nameOrId?: string): Project;
  node(name: string, project?: string): Node;
  setLinkPcap(linkId: string, data: Uint8Array, opts?: { packetIntervalMs?: number }): void;
  inject(rule: InjectRule): void;
  clearInjections(): void;
  revokeTokens(): void;
  /** the notification streams: listener counts, drops, refusals, the auto_close rule (./notifications.ts) */
  notifications: FakeNotifications;
  set statusDelayMs(ms: number);
  close(): Promise<void>;
}

export async function startFakeGns3(opts: FakeGns3Options): Promise<FakeGns3> {
  const api = opts.api;
  const v2 = api === 'v2';
  const version = opts.version ?? (v2 ? '2.2.59' : '3.0.6');
  let statusDelayMs = opts.statusDelayMs ?? 0;
  const consoleHost = opts.consoleHost ?? '127.0.0.1';
  const computes: FakeCompute[] = opts.computes ?? (v2 ? [{ compute_id: 'local', name: 'vm', host: '127.0.0.1', port: 3080 }] : []);
  /** The real /computes object (gns3-api.md, Computes). */
  const computeJson = (c: FakeCompute): Json => ({
    compute_id: c.compute_id,
    name: c.name,
    protocol: 'http',
    host: c.host,
    port: c.port ?? 3080,
    user: null,
    connected: c.connected ?? true,
    last_error: null,
    cpu_usage_percent: 3.1,
    memory_usage_percent: 41.7,
    capabilities: { node_types: ['vpcs', 'qemu', 'ethernet_switch', 'ethernet_hub', 'cloud', 'nat'], platform: 'linux', version },
  });
  const projects = new Map<string, Project>();
  let lastProject: string | undefined;
  const templates: Template[] = BUILTINS.map(([name, type, category, fmt, id2, id3]) => {
    const t: Template = {
      template_id: v2 ? id2 : id3,
      name,
      template_type: type,
      category,
      default_name_format: fmt,
      builtin: true,
      compute_id: null,
      symbol: `:/symbols/${type}.svg`,
    };
    if (type === 'ethernet_switch') t.console_type = 'none';
    if (type === 'vpcs') {
      if (v2) t.properties = { base_script_file: 'vpcs_base_config.txt' };
      else t.base_script_file = 'vpcs_base_config.txt';
    }
    return t;
  });
  const templateAdapters = new Map<string, number>();
  const tokens = new Set<string>();
  const injections: (InjectRule & { left: number })[] = [];
  const requests: RecordedRequest[] = [];
  const pcaps = new Map<string, { data: Uint8Array; interval?: number }>();
  const streams = new Map<string, Set<ServerResponse>>();
  const sockets = new Set<Socket>();
  let nextConsole = v2 ? 5000 : 6000;
  const notify = new FakeNotifications({
    v2,
    auth: (url, req) => {
      if (v2) {
        if (!opts.users) return 'ok';
        const m = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
        const [u, pw] = m ? Buffer.from(m[1]!, 'base64').toString().split(':') : [];
        return u && opts.users[u] !== undefined && opts.users[u] === pw ? 'ok' : 'bad';
      }
      // 3.x reads the WebSocket's token from the query only
      const token = url.searchParams.get('token');
      return !token ? 'missing' : tokens.has(token) ? 'ok' : 'bad';
    },
    projectExists: (id) => projects.has(id),
    autoClose: (id) => projects.get(id)?.data.auto_close === true,
    closeProject: (id) => closeProject(projects.get(id)!),
  });
  if (opts.closeDelayMs !== undefined) notify.closeDelayMs = opts.closeDelayMs;
  if (opts.pingMs !== undefined) notify.pingMs = opts.pingMs;
  const emitNode = (action: string, n: Json) => notify.emitProject(String(n.project_id), action, n);
  const emitLink = (p: Project, action: string, l: Link) => notify.emitProject(p.data.project_id, action, linkJson(l));
  /** What POST /close does: every node stops (one node.updated each), then project.closed on the controller stream. */
  const closeProject = (p: Project) => {
    if (p.data.status === 'closed') return;
    for (const n of p.nodes.values())
      if (!ALWAYS_ON.has(n.node_type) && n.status !== 'stopped') {
        n.status = 'stopped';
        emitNode('node.updated', n);
      }
    p.data.status = 'closed';
    notify.emitController('project.closed', p.data);
  };

  // ---- helpers ----------------------------------------------------------
  const send = (res: ServerResponse, status: number, body?: unknown) => {
    if (status === 204) {
      res.writeHead(204, v2 ? {} : { 'content-type': 'application/json' });
      res.end();
      return;
    }
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(v2 ? JSON.stringify(body, null, 4) : JSON.stringify(body));
  };
  const fail = (status: number, message: string): never => {
    throw new HttpFail(status, message);
  };
  const routeNotFound = (): never => {
    if (v2) throw new HttpFail(404, '', { body: '404: Not Found', contentType: 'text/plain; charset=utf-8' });
    throw new HttpFail(404, '', { body: JSON.stringify({ detail: 'Not Found' }), contentType: 'application/json' });
  };
  const serverCrash = (pyError: string): never => {
    if (v2) {
      const tb = `Traceback (most recent call last):\n  File "/usr/lib/python3/dist-packages/gns3server/web/route.py", line 238, in control_schema\n    response = await func(request, response)\n${pyError}`;
      throw new HttpFail(500, '', { body: JSON.stringify({ message: tb, status: 500 }), contentType: 'application/json' });
    }
    throw new HttpFail(500, '', { body: 'Internal Server Error', contentType: 'text/plain; charset=utf-8' });
  };
  /** A missing required field: v2 400 schema error, v3 422 pydantic repr. */
  const required = (field: string, where: string[], body: unknown): never => {
    if (v2)
      fail(
        400,
        `JSON schema error with API request '${where.join('/')}' and JSON data '${JSON.stringify(body)}': '${field}' is a required property`,
      );
    return fail(422, pyRepr('missing', ['body', field], 'Field required', JSON.stringify(body ?? {}).replace(/"/g, "'")));
  };

  const getProject = (id: string): Project => {
    const p = projects.get(id);
    if (!p) {
      if (!v2 && !/^[0-9a-f-]{36}$/i.test(id))
        fail(422, pyRepr('uuid_parsing', ['path', 'project_id'], 'Input should be a valid UUID', `'${id}'`));
      fail(404, `Project ID ${id} doesn't exist`);
    }
    return p!;
  };
  const requireOpened = (p: Project) => {
    if (p.data.status !== 'opened') fail(403, 'The project is not opened');
  };
  const getNode = (p: Project, id: string): Node => p.nodes.get(id) ?? fail(404, `Node ID ${id} doesn't exist`);
  const getLink = (p: Project, id: string): Link => p.links.get(id) ?? fail(404, `Link ID ${id} doesn't exist`);

  /** The real de-dup rule: free → as is; else trailing digits → first free number from 1. */
  const allocateName = (p: Project, wanted: string, self?: string): string => {
    const taken = new Set([...p.nodes.values()].filter((n) => n.node_id !== self).map((n) => n.name));
    const clean = wanted.replace(/\s+/g, '');
    if (clean.includes('{0}')) {
      for (let i = 1; ; i++) if (!taken.has(clean.replace('{0}', String(i)))) return clean.replace('{0}', String(i));
    }
    if (!taken.has(clean)) return clean;
    const base = clean.replace(/\d+$/, '');
    for (let i = 1; ; i++) if (!taken.has(`${base}${i}`)) return `${base}${i}`;
  };

  const makePorts = (nodeType: string, spec?: number | string[], fmt = 'Ethernet{0}'): Port[] => {
    const shortOf = (name: string) =>
      name
        .replace(/^Ethernet(?=\d)/, 'e')
        .replace(/^GigabitEthernet(?=\d)/, 'Gi')
        .replace(/^FastEthernet(?=\d)/, 'f');
    const switchLike = nodeType === 'ethernet_switch' || nodeType === 'ethernet_hub';
    const eth = (names: string[]): Port[] =>
      names.map((name, i) => ({
        adapter_number: switchLike ? 0 : i,
        port_number: switchLike ? i : 0,
        name,
        short_name: shortOf(name),
        link_type: 'ethernet',
        data_link_types: { Ethernet: 'DLT_EN10MB' },
      }));
    if (Array.isArray(spec)) return eth(spec);
    const count =
      spec ??
      (nodeType === 'vpcs'
        ? 1
        : nodeType === 'ethernet_switch' || nodeType === 'ethernet_hub'
          ? 8
          : nodeType === 'cloud'
            ? 0
            : ['frame_relay_switch', 'atm_switch', 'nat'].includes(nodeType)
              ? 0
              : 4);
    if (nodeType === 'cloud' && spec === undefined) return eth(['eth0']);
    return eth(Array.from({ length: count }, (_, i) => fmt.replace('{0}', String(i))));
  };

  const newNode = (
    p: Project,
    spec: {
      name: string;
      node_type: string;
      template_id?: string | null;
      x?: number;
      y?: number;
      ports?: number | string[];
      status?: string;
      console?: number | null;
      console_host?: string | null;
      console_type?: string | null;
      usage?: string;
      compute_id?: string;
    },
  ): Node => {
    const t = spec.node_type;
    const alwaysOn = ALWAYS_ON.has(t);
    const hasConsole = !(t === 'ethernet_hub' || t === 'cloud' || t === 'nat' || t === 'frame_relay_switch' || t === 'atm_switch');
    const node: Node = {
      command_line: '',
      compute_id: spec.compute_id ?? 'local',
      console: spec.console !== undefined ? spec.console : hasConsole ? nextConsole++ : null,
      console_auto_start: false,
      console_host: spec.console_host !== undefined ? spec.console_host : hasConsole ? consoleHost : null,
      console_type: spec.console_type !== undefined ? spec.console_type : t === 'ethernet_switch' ? 'none' : hasConsole ? 'telnet' : null,
      custom_adapters: [],
      first_port_name: null,
      height: 59,
      label: { rotation: 0, style: null, text: spec.name, x: null, y: -40 },
      locked: false,
      name: spec.name,
      node_directory: hasConsole && !alwaysOn ? `/opt/gns3/projects/${p.data.project_id}/project-files/${t}/x` : null,
      node_id: randomUUID(),
      node_type: t,
      port_name_format: 'Ethernet{0}',
      port_segment_size: 0,
      ports: makePorts(t, spec.ports),
      project_id: p.data.project_id,
      properties: spec.usage ? { usage: spec.usage } : v2 ? {} : { builtin: true, usage: null },
      status: spec.status ?? (alwaysOn ? 'started' : 'stopped'),
      symbol: `:/symbols/${t}.svg`,
      template_id: spec.template_id ?? null,
      width: 65,
      x: spec.x ?? 0,
      y: spec.y ?? 0,
      z: 1,
    };
    if (!v2) {
      node.aux = null;
      node.aux_type = null;
    }
    if (t === 'ethernet_switch' && node.console === null) node.console = nextConsole++;
    p.nodes.set(node.node_id, node);
    emitNode('node.created', node);
    return node;
  };

  const linkJson = (l: Link): Json => ({
    capture_compute_id: l.capturing ? 'local' : null,
    ...l,
  });

  const portOf = (n: Node, adapter: number, port: number) => n.ports.find((x) => x.adapter_number === adapter && x.port_number === port);
  const portInUse = (p: Project, nodeId: string, adapter: number, port: number) =>
    [...p.links.values()].some((l) => l.nodes.some((e) => e.node_id === nodeId && e.adapter_number === adapter && e.port_number === port));

  const createLink = (p: Project, body: Json): Link => {
    const ends = body.nodes;
    if (!Array.isArray(ends)) return required('nodes', ['projects', p.data.project_id, 'links'], body);
    if (!v2 && ends.length < 2)
      fail(422, pyRepr('too_short', ['body', 'nodes'], 'List should have at least 2 items after validation, not 1', '[...]'));
    const resolved = ends.map((e: Json) => {
      const n = getNode(p, String(e.node_id));
      const a = Number(e.adapter_number);
      const pn = Number(e.port_number);
      if (!portOf(n, a, pn)) fail(404, `Port ${a}/${pn} for ${n.name} not found`);
      if (portInUse(p, n.node_id, a, pn)) fail(409, 'Port is already used');
      return { n, a, pn, label: e.label as Json | undefined };
    });
    if (resolved.length === 2 && resolved[0]!.n.node_id === resolved[1]!.n.node_id) fail(409, 'Cannot connect to itself');
    const link: Link = {
      capture_file_name: null,
      capture_file_path: null,
      capturing: false,
      filters: {},
      link_id: randomUUID(),
      link_style: {},
      link_type: 'ethernet',
      nodes: resolved.map((r) => ({
        adapter_number: r.a,
        label: r.label
          ? { ...r.label, ...(v2 ? {} : { style: null, rotation: null }) }
          : { style: 'font-family: TypeWriter;font-size: 10.0;font-weight: bold;fill: #000000;fill-opacity: 1.0;', text: `${r.a}/${r.pn}` },
        node_id: r.n.node_id,
        port_number: r.pn,
      })),
      project_id: p.data.project_id,
      suspend: false,
    };
    p.links.set(link.link_id, link);
    emitLink(p, 'link.created', link);
    return link;
  };

  /** Real behaviour: no range check unless a link node runs (uBridge applies it live). */
  const setFilters = (p: Project, l: Link, filters: unknown) => {
    if (typeof filters !== 'object' || filters === null || Array.isArray(filters)) {
      if (v2) fail(400, `'${String(filters)}' is not of type 'object'`);
      fail(422, pyRepr('dict_type', ['body', 'filters'], 'Input should be a valid dictionary', `'${String(filters)}'`));
    }
    const stored: Record<string, unknown[]> = {};
    for (const [k, v] of Object.entries(filters as Json)) {
      if (!Array.isArray(v) || v.some((x) => x === null)) serverCrash(`TypeError: 'int' object is not iterable`);
      const values = (v as unknown[]).map((x) => (typeof x === 'number' ? Math.trunc(x) : x));
      if (values.length === 0 || values[0] === 0 || values[0] === '') continue;
      stored[k] = values;
    }
    l.filters = stored;
    const live = l.nodes.some((e) => p.nodes.get(e.node_id)?.status === 'started' && !ALWAYS_ON.has(p.nodes.get(e.node_id)!.node_type));
    if (live) {
      for (const [k, v] of Object.entries(stored)) {
        const def = AVAILABLE_FILTERS.find((f) => f.type === k);
        const bad =
          !def ||
          (k === 'bpf'
            ? v.length !== 1 || typeof v[0] !== 'string'
            : v.some(
                (x, i) =>
                  typeof x === 'number' &&
                  def.parameters[i] &&
                  (x < (def.parameters[i].minimum ?? -Infinity) || x > (def.parameters[i].maximum ?? Infinity)),
              ));
        if (bad) {
          fail(
            409,
            `Error while sending command 'bridge add_packet_filter LINK-${l.link_id.slice(0, 8)} filter0 ${k} ${v.join(' ')}': Failed to add filter 'filter0': ${def ? 'invalid value' : `Filter type '${k}' doesn't exist`}`,
          );
        }
      }
    }
  };

  const changeStatus = (n: Node, action: string) => {
    const target = action === 'start' || action === 'reload' ? 'started' : action === 'stop' ? 'stopped' : 'suspended';
    if (ALWAYS_ON.has(n.node_type)) return;
    if (target === 'suspended' && n.node_type === 'vpcs') return;
    const apply = () => {
      if (n.status === target) return;
      n.status = target;
      if (target === 'started' && n.command_line === '') n.command_line = `/usr/bin/${n.node_type} -p ${String(n.console)}`;
      emitNode('node.updated', n);
    };
    if (statusDelayMs > 0) setTimeout(apply, statusDelayMs).unref();
    else apply();
  };

  const stopStreams = (linkId: string) => {
    for (const res of streams.get(linkId) ?? []) {
      // v3 closes the stream cleanly; v2 breaks the connection.
      if (v2) res.socket?.destroy();
      else res.end();
    }
    streams.delete(linkId);
  };

  // ---- auth ---------------------------------------------------------------
  const makeJwt = (user: string) => {
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const token = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub: user, exp: Math.floor(Date.now() / 1000) + 86400 })}.${randomBytes(32).toString('base64url')}`;
    tokens.add(token);
    return token;
  };
  const checkAuth = (req: IncomingMessage, url: URL) => {
    if (v2) {
      if (!opts.users) return;
      const h = req.headers.authorization ?? '';
      const m = /^Basic (.+)$/i.exec(h);
      const [u, pw] = m ? Buffer.from(m[1]!, 'base64').toString().split(':') : [];
      if (!u || opts.users[u] === undefined || opts.users[u] !== pw) {
        throw new HttpFail(401, '', { body: '401: Unauthorized', contentType: 'text/plain; charset=utf-8' });
      }
      return;
    }
    const h = req.headers.authorization;
    const token = url.searchParams.get('token') ?? (h && /^bearer /i.test(h) ? h.slice(7).trim() : undefined);
    if (!token) fail(401, 'Not authenticated');
    if (!tokens.has(token!)) fail(401, 'Could not validate credentials');
  };

  // ---- routing ----------------------------------------------------------
  const handle = async (req: IncomingMessage, res: ServerResponse, url: URL, rawBody: string): Promise<void> => {
    const method = req.method ?? 'GET';
    const prefix = `/${api}`;
    if (!url.pathname.startsWith(prefix + '/')) routeNotFound();
    const parts = url.pathname
      .slice(prefix.length + 1)
      .split('/')
      .filter(Boolean);
    const parseBody = (): Json | undefined => {
      if (rawBody.trim() === '') return undefined;
      try {
        return JSON.parse(rawBody) as Json;
      } catch {
        if (v2) fail(400, `Invalid JSON Expecting property name enclosed in double quotes: line 1 column 2 (char 1)`);
        return fail(422, pyRepr('json_invalid', ['body', '1'], 'JSON decode error', '{}'));
      }
    };
    const body = parseBody();
    const [a, b, c, d, e, f] = parts;

    // v2 basic auth (when enabled) guards every route; v3 leaves /version open.
    if (v2) checkAuth(req, url);
    if (a === 'version' && parts.length === 1) {
      if (method === 'GET') return send(res, 200, v2 ? { local: true, version } : { controller_host: '127.0.0.1', version, local: true });
    }
    if (!v2 && a === 'access' && b === 'users' && c === 'authenticate' && method === 'POST') {
      const u = body?.username;
      const pw = body?.password;
      if (typeof u !== 'string') return required('username', [], body);
      if (typeof pw !== 'string') return required('password', [], body);
      if (!opts.users || opts.users[u] !== pw) {
        res.setHeader('www-authenticate', 'Bearer');
        fail(401, 'Authentication was unsuccessful.');
      }
      return send(res, 200, { access_token: makeJwt(u), token_type: 'bearer' });
    }
    if (!v2) checkAuth(req, url);

    if (a === 'computes' && parts.length === 1 && method === 'GET') {
      return send(res, 200, computes.map(computeJson));
    }
    if (a === 'templates') {
      if (parts.length === 1 && method === 'GET') return send(res, 200, templates);
      if (parts.length === 2 && method === 'GET') {
        const t = templates.find((x) => x.template_id === b);
        return t ? send(res, 200, t) : fail(404, v2 ? `Template ID ${b} doesn't exist` : `Template '${b}' not found`);
      }
    }
    const stream = FakeNotifications.route(parts);
    if (stream && !stream.ws && method === 'GET') {
      if (stream.projectId !== null) getProject(stream.projectId);
      return notify.httpStream(stream.projectId, res);
    }
    if (a !== 'projects') return routeNotFound();
    if (parts.length === 1) {
      if (method === 'GET')
        return send(
          res,
          200,
          [...projects.values()].map((p) => p.data),
        );
      if (method === 'POST') {
        if (typeof body?.name !== 'string') return required('name', ['projects'], body);
        if ([...projects.values()].some((p) => p.data.name === body.name)) fail(409, `Project "${body.name}" already exists`);
        const id = api_addProject({ name: body.name });
        notify.emitController('project.created', projects.get(id)!.data);
        return send(res, 201, projects.get(id)!.data);
      }
      return routeNotFound();
    }
    const p = getProject(b!);
    if (parts.length === 2) {
      if (method === 'GET') return send(res, 200, p.data);
      if (method === 'DELETE') {
        closeProject(p);
        projects.delete(p.data.project_id);
        notify.emitController('project.deleted', p.data);
        return send(res, 204);
      }
      if (method === 'PUT') {
        Object.assign(p.data, body ?? {});
        notify.emitController('project.updated', p.data);
        return send(res, 200, p.data);
      }
    }
    if (parts.length === 3 && c === 'open' && method === 'POST') {
      if (p.data.status !== 'opened') {
        p.data.status = 'opened';
        notify.emitController('project.opened', p.data);
      }
      return send(res, 201, p.data);
    }
    if (parts.length === 3 && c === 'close' && method === 'POST') {
      closeProject(p);
      return send(res, 204);
    }
    if (c === 'templates' && parts.length === 4 && method === 'POST') {
      const t =
        templates.find((x) => x.template_id === d) ?? fail(404, v2 ? `Template ID ${d} doesn't exist` : `Template '${d}' not found`);
      if (typeof body?.x !== 'number') return required('x', ['projects', p.data.project_id, 'templates', d!], body);
      if (typeof body?.y !== 'number') return required('y', ['projects', p.data.project_id, 'templates', d!], body);
      if (v2 && !body.compute_id && t.compute_id == null) fail(404, `Compute ID None doesn't exist`);
      const computeId = typeof body.compute_id === 'string' ? body.compute_id : ((t.compute_id as string | null) ?? 'local');
      // "local" always exists (v3 does not list it); anything else must be a registered compute
      const compute = computes.find((c) => c.compute_id === computeId);
      if (!compute && computeId !== 'local') fail(404, `Compute ID ${computeId} doesn't exist`);
      requireOpened(p);
      if (t.template_type === 'nat') fail(409, 'NAT interface virbr0 is missing, please install libvirt');
      // v3 ignores `name` here even though its schema documents it.
      const wanted = v2 && typeof body.name === 'string' ? body.name : t.default_name_format;
      const node = newNode(p, {
        name: allocateName(p, wanted),
        node_type: t.template_type,
        template_id: t.template_id,
        x: body.x,
        y: body.y,
        ports: templateAdapters.get(t.template_id),
        usage: typeof t.usage === 'string' ? t.usage : undefined,
        compute_id: computeId,
        ...(compute ? { console_host: compute.host } : {}),
      });
      return send(res, 201, node);
    }
    if (c === 'nodes') {
      if (parts.length === 3 && method === 'GET') return send(res, 200, [...p.nodes.values()]);
      if (parts.length === 4 && ['start', 'stop', 'suspend', 'reload'].includes(d!) && method === 'POST') {
        requireOpened(p);
        for (const n of p.nodes.values()) changeStatus(n, d!);
        return send(res, 204);
      }
      const n = getNode(p, d!);
      if (parts.length === 4) {
        if (method === 'GET') return send(res, 200, n);
        if (method === 'DELETE') {
          for (const [id, l] of p.links)
            if (l.nodes.some((x) => x.node_id === n.node_id)) {
              p.links.delete(id);
              emitLink(p, 'link.deleted', l);
            }
          p.nodes.delete(n.node_id);
          // the compute's short form first, then the controller's full node
          const short = ['command_line', 'console', 'console_type', 'name', 'node_directory', 'node_id', 'project_id', 'status'];
          emitNode('node.deleted', { ...Object.fromEntries(short.map((k) => [k, n[k]])), console: null });
          emitNode('node.deleted', n);
          return send(res, 204);
        }
        if (method === 'PUT') {
          const upd = body ?? {};
          if (v2) {
            const extra = Object.keys(upd).find((k) => !['name', 'x', 'y', 'z', 'label', 'symbol', 'console', 'properties'].includes(k));
            if (extra) fail(400, `Additional properties are not allowed ('${extra}' was unexpected)`);
          }
          if (typeof upd.name === 'string') {
            if (v2 && upd.name === '') fail(400, `'' is too short`);
            if (!v2 && n.status === 'started' && !ALWAYS_ON.has(n.node_type))
              fail(409, 'Sorry, it is not possible to rename a node that is already powered on');
            n.name = upd.name === '' ? '' : allocateName(p, upd.name, n.node_id);
            (n.label as Json).text = n.name;
          }
          if (typeof upd.x === 'number') n.x = Math.trunc(upd.x);
          if (typeof upd.y === 'number') n.y = Math.trunc(upd.y);
          emitNode('node.updated', n);
          return send(res, 200, n);
        }
      }
      if (parts.length === 5 && ['start', 'stop', 'suspend', 'reload'].includes(e!) && method === 'POST') {
        if (!v2 && e === 'start' && (body === undefined || typeof body !== 'object' || Array.isArray(body))) {
          fail(
            422,
            body === undefined
              ? pyRepr('missing', ['body'], 'Field required', 'None')
              : pyRepr('dict_type', ['body'], 'Input should be a valid dictionary', '[]'),
          );
        }
        requireOpened(p);
        const before = { ...n };
        changeStatus(n, e!);
        // v2 answers with the node as it was when the command was sent (often stale).
        return v2 ? send(res, 200, before) : send(res, 204);
      }
      if (parts.length === 5 && e === 'links' && method === 'GET') {
        return send(res, 200, [...p.links.values()].filter((l) => l.nodes.some((x) => x.node_id === n.node_id)).map(linkJson));
      }
    }
    if (c === 'links') {
      if (parts.length === 3 && method === 'GET') return send(res, 200, [...p.links.values()].map(linkJson));
      if (parts.length === 3 && method === 'POST') return send(res, 201, linkJson(createLink(p, body ?? {})));
      const l = getLink(p, d!);
      if (parts.length === 4) {
        if (method === 'GET') return send(res, 200, linkJson(l));
        if (method === 'DELETE') {
          stopStreams(l.link_id);
          p.links.delete(l.link_id);
          emitLink(p, 'link.deleted', l);
          return send(res, 204);
        }
        if (method === 'PUT') {
          if (body && 'suspend' in body) l.suspend = Boolean(body.suspend);
          try {
            if (body && 'filters' in body) setFilters(p, l, body.filters);
          } finally {
            // a filter uBridge refused is still stored (and told)
            emitLink(p, 'link.updated', l);
          }
          return send(res, v2 ? 201 : 200, linkJson(l));
        }
      }
      if (parts.length === 5 && e === 'available_filters' && method === 'GET') return send(res, 200, AVAILABLE_FILTERS);
      const capture = v2
        ? {
            start: e === 'start_capture' && parts.length === 5,
            stop: e === 'stop_capture' && parts.length === 5,
            stream: e === 'pcap' && parts.length === 5,
          }
        : { start: e === 'capture' && f === 'start', stop: e === 'capture' && f === 'stop', stream: e === 'capture' && f === 'stream' };
      if (capture.start && method === 'POST') {
        if (!v2 && body === undefined) fail(422, pyRepr('missing', ['body'], 'Field required', 'None'));
        if (l.capturing) fail(409, `Port ${l.nodes[1]?.port_number ?? 0} has already a filter applied`);
        const names = l.nodes.map((x) => `${p.nodes.get(x.node_id)?.name}_${x.adapter_number}-${x.port_number}`);
        l.capturing = true;
        l.capture_file_name = typeof body?.capture_file_name === 'string' ? body.capture_file_name : `${names.join('_to_')}.pcap`;
        l.capture_file_path = `/opt/gns3/projects/${p.data.project_id}/project-files/captures/${String(l.capture_file_name)}`;
        emitLink(p, 'link.updated', l);
        return send(res, 201, linkJson(l));
      }
      if (capture.stop && method === 'POST') {
        l.capturing = false;
        stopStreams(l.link_id);
        emitLink(p, 'link.updated', l);
        return v2 ? send(res, 201, linkJson(l)) : send(res, 204);
      }
      if (capture.stream && method === 'GET') {
        if (!l.capturing) fail(409, 'This link has no active packet capture');
        res.writeHead(200, {
          'content-type': 'application/vnd.tcpdump.pcap',
          ...(v2
            ? { 'x-route': '/v2/compute/projects/{project_id}/vpcs/nodes/{node_id}/adapters/{adapter_number}/ports/{port_number}/pcap' }
            : {}),
        });
        res.flushHeaders();
        const set = streams.get(l.link_id) ?? new Set();
        set.add(res);
        streams.set(l.link_id, set);
        res.on('close', () => set.delete(res));
        const pcap = pcaps.get(l.link_id);
        if (pcap) writePcap(res, pcap.data, pcap.interval);
        return; // stays open until the capture stops or the client leaves
      }
    }
    routeNotFound();
  };

  const writePcap = (res: ServerResponse, data: Uint8Array, interval?: number) => {
    const buf = Buffer.from(data);
    if (!interval) {
      res.write(buf);
      return;
    }
    const le = buf.readUInt32LE(0) === 0xa1b2c3d4;
    let off = 24;
    res.write(buf.subarray(0, 24));
    const tick = () => {
      if (res.destroyed || res.writableEnded || off + 16 > buf.length) return;
      const len = le ? buf.readUInt32LE(off + 8) : buf.readUInt32BE(off + 8);
      res.write(buf.subarray(off, off + 16 + len));
      off += 16 + len;
      setTimeout(tick, interval).unref();
    };
    setTimeout(tick, interval).unref();
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString();
      const url = new URL(req.url ?? '/', 'http://fake');
      requests.push({ method: req.method ?? 'GET', path: url.pathname, query: url.search, headers: req.headers, body: rawBody });
      void (async () => {
        const rule = injections.find(
          (r) =>
            r.left > 0 &&
            (!r.method || r.method === req.method) &&
            (typeof r.path === 'string' ? r.path === url.pathname : r.path.test(url.pathname)),
        );
        if (rule) {
          rule.left--;
          if (rule.delayMs) await new Promise((r) => setTimeout(r, rule.delayMs));
          if (rule.destroy) {
            req.socket.destroy();
            return;
          }
          if (rule.status !== undefined) {
            if (res.destroyed) return;
            res.writeHead(rule.status, { 'content-type': rule.contentType ?? 'application/json' });
            res.end(rule.body ?? '');
            return;
          }
        }
        if (res.destroyed) return;
        try {
          await handle(req, res, url, rawBody);
        } catch (err) {
          if (res.headersSent) return;
          if (err instanceof HttpFail) {
            if (err.raw) {
              res.writeHead(err.status, { 'content-type': err.raw.contentType });
              res.end(err.raw.body);
            } else {
              if (!v2 && err.status === 401) res.setHeader('www-authenticate', 'Bearer');
              send(res, err.status, v2 ? { message: err.message, status: err.status } : { message: err.message });
            }
            return;
          }
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end('Internal Server Error');
        }
      })();
    });
  });
  notify.attach(server);
  // The real controller (aiohttp) keeps an idle connection 75 s, far past the client's own 4 s;
  // node's 5 s default let a loaded machine's client reuse a socket the fake was closing
  // (a configuration PUT then fails 'closed the connection', and is rightly not retried).
  server.keepAliveTimeout = 75_000;
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;

  function api_addProject(spec: { name: string; status?: 'opened' | 'closed'; project_id?: string; auto_close?: boolean }): string {
    const id = spec.project_id ?? randomUUID();
    projects.set(id, {
      data: {
        auto_close: spec.auto_close ?? true,
        auto_open: false,
        auto_start: false,
        drawing_grid_size: 25,
        filename: `${spec.name}.gns3`,
        grid_size: 75,
        name: spec.name,
        path: `/opt/gns3/projects/${id}`,
        project_id: id,
        scene_height: 1000,
        scene_width: 2000,
        show_grid: false,
        show_interface_labels: false,
        show_layers: false,
        snap_to_grid: false,
        status: spec.status ?? 'opened',
        supplier: null,
        variables: null,
        zoom: 100,
      },
      nodes: new Map(),
      links: new Map(),
    });
    lastProject = id;
    return id;
  }

  const findProject = (ref?: string): Project => {
    const id = ref ?? lastProject;
    const p = (id && projects.get(id)) || [...projects.values()].find((x) => x.data.name === ref);
    if (!p) throw new Error(`fake gns3: no project ${ref ?? '(none added)'}`);
    return p;
  };
  const findNode = (p: Project, name: string): Node => {
    const n = [...p.nodes.values()].find((x) => x.name === name || x.node_id === name);
    if (!n) throw new Error(`fake gns3: no node ${name}`);
    return n;
  };

  const fake: FakeGns3 = {
    url: `http://127.0.0.1:${port}`,
    api,
    requests,
    addProject: api_addProject,
    addTemplate(t) {
      const id = randomUUID();
      templates.push({
        template_id: id,
        name: t.name,
        template_type: t.template_type,
        category: t.category ?? 'router',
        default_name_format: t.default_name_format ?? `${t.name.replace(/\s+/g, '')}-{0}`,
        builtin: false,
        compute_id: t.compute_id !== undefined ? t.compute_id : 'local',
        symbol: ':/symbols/router.svg',
        ...(t.usage ? { usage: t.usage } : {}),
      });
      if (t.adapters !== undefined) templateAdapters.set(id, t.adapters);
      return id;
    },
    addNode(spec) {
      const p = findProject(spec.project);
      let templateId: string | null = null;
      if (spec.template_name) {
        const t = templates.find((x) => x.name === spec.template_name);
        templateId = t ? t.template_id : fake.addTemplate({ name: spec.template_name, template_type: spec.node_type });
      }
      return newNode(p, {
        name: spec.name,
        node_type: spec.node_type,
        template_id: templateId,
        x: spec.x,
        y: spec.y,
        ports: spec.ports,
        status: spec.status,
        console: spec.console,
        console_host: spec.console_host,
        console_type: spec.console_type ?? (spec.console !== undefined && spec.console !== null ? 'telnet' : undefined),
        usage: spec.tags?.length ? spec.tags.join('\n') : undefined,
      });
    },
    addLink(spec) {
      const p = findProject(spec.project);
      const end = (ref: string) => {
        const [nodeName, portName] = ref.split(':');
        const n = findNode(p, nodeName!);
        const port = n.ports.find((x) => x.short_name === portName || x.name === portName) ?? n.ports[0];
        if (!port) throw new Error(`fake gns3: ${nodeName} has no port ${portName}`);
        return { node_id: n.node_id, adapter_number: port.adapter_number, port_number: port.port_number };
      };
      const l = createLink(p, { nodes: [end(spec.a), end(spec.b)] });
      if (spec.filters) l.filters = spec.filters;
      return l;
    },
    project: findProject,
    node(name, project) {
      return findNode(findProject(project), name);
    },
    setLinkPcap(linkId, data, o) {
      pcaps.set(linkId, { data, interval: o?.packetIntervalMs });
    },
    inject(rule) {
      injections.push({ ...rule, left: rule.times ?? 1 });
    },
    clearInjections() {
      injections.length = 0;
    },
    revokeTokens() {
      tokens.clear();
    },
    notifications: notify,
    set statusDelayMs(ms: number) {
      statusDelayMs = ms;
    },
    async close() {
      notify.close();
      for (const set of streams.values()) for (const r of set) r.destroy();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}

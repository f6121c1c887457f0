/**
 * Test plumbing for the device layer: a ProjectScope whose topology points at
 * lab consoles (the edge between the device tools and GNS3), a tool context,
 * and small scripted TCP consoles for faults a real device will not produce on
 * demand (silence, a dropped connection, interactive questions).
 */
import net from 'node:net';
import { settingsSchema, type Settings } from '../../src/config/schema.js';
import type { Topology, TopologyNode, ProjectScope } from '../../src/gns3/types.js';
import { topologyNode } from '../helpers/topology.js';
import { executeMultipleDeviceCommands } from '../../src/tools/devices/commands.js';
import { nullLogger } from '../../src/log.js';
import type { ToolContext, ToolDef } from '../../src/tools/types.js';
import { outcomeText } from '../../src/tools/registry.js';
import { DevicePool, POOL_SERVICE_KEY } from '../../src/devices/pool.js';

export function settingsWith(over: Record<string, unknown> = {}): Settings {
  return settingsSchema.parse({ connect_timeout_ms: 3_000, command_timeout_ms: 10_000, ...over });
}

export function scopeOf(topology: Topology): ProjectScope {
  return {
    projectId: topology.project_id,
    projectName: topology.project_name,
    getTopology: async () => topology,
    capture: async () => {
      throw new Error('no capture in device tests');
    },
  };
}

export function extraNode(name: string, port: number, over: Partial<TopologyNode> = {}): TopologyNode {
  return topologyNode(name, { node_id: `ffffffff-0000-4000-8000-${String(port).padStart(12, '0')}`, console: port, ...over });
}

export function ctxFor(settings: Settings, topology: Topology | (() => Topology), signal?: AbortSignal): ToolContext {
  const topo = typeof topology === 'function' ? topology : () => topology;
  return {
    settings,
    signal: signal ?? new AbortController().signal,
    log: nullLogger,
    project: async () => scopeOf(topo()),
    services: new Map(),
  };
}

export function closePool(ctx: ToolContext): void {
  (ctx.services.get(POOL_SERVICE_KEY) as DevicePool | undefined)?.closeAll();
}

export async function runTool(tool: ToolDef, args: unknown, ctx: ToolContext): Promise<any> {
  const parsed = tool.schema.parse(args);
  return JSON.parse(outcomeText(await tool.run(parsed, ctx)));
}

/** execute_multiple_device_commands with these commands per device name (in this order); its parsed result. */
export function runCommands(ctx: ToolContext, commands: Record<string, string[]>): Promise<any> {
  const device_configs = Object.entries(commands).map(([device_name, list]) => ({ device_name, commands: list }));
  return runTool(executeMultipleDeviceCommands, { device_configs }, ctx);
}

export interface FakeConsole {
  port: number;
  received: string[];
  connections: number;
  close(): Promise<void>;
}

/**
 * Offers echo and go-ahead suppression like a GNS3 console (IAC WILL ECHO, WILL SGA),
 * then hands each typed line to `onLine`: telnet commands and Ctrl-C dropped (a real
 * CLI discards the interrupted line), any Enter (CR LF, CR NUL, LF, CR) ends a line.
 */
export function telnetLines(sock: net.Socket, onLine: (line: string) => void): void {
  sock.write(Buffer.from([255, 251, 1, 255, 251, 3]));
  let buf = '';
  sock.on('data', (d: Buffer) => {
    buf += Buffer.from([...d].filter((b, i, a) => b < 240 && b !== 3 && !(i > 0 && a[i - 1]! >= 251))).toString('latin1');
    let m: RegExpExecArray | null;
    while ((m = /\r\n|\r\0|\n|\r/.exec(buf))) {
      const line = buf.slice(0, m.index);
      buf = buf.slice(m.index + m[0].length);
      onLine(line);
    }
  });
}

/**
 * A scripted line-based console: sends IAC WILL ECHO/SGA, echoes each line,
 * answers with `reply(line, sock)` (return a string to print before the prompt,
 * or null to handle the socket yourself).
 */
export async function fakeConsole(
  prompt: string,
  reply: (line: string, sock: net.Socket, state: { pending?: string }) => string | null,
  opts: { silent?: boolean } = {},
): Promise<FakeConsole> {
  const received: string[] = [];
  const sockets = new Set<net.Socket>();
  const fc: FakeConsole = { port: 0, received, connections: 0, close: async () => {} };
  const server = net.createServer((sock) => {
    fc.connections++;
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
    sock.on('error', () => {});
    if (opts.silent) return; // accepts, never says anything
    const state: { pending?: string } = {};
    telnetLines(sock, (line) => {
      received.push(line);
      sock.write(line + '\r\n');
      const out = reply(line, sock, state);
      if (out !== null) sock.write(out + prompt);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fc.port = (server.address() as net.AddressInfo).port;
  fc.close = () =>
    new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    });
  return fc;
}

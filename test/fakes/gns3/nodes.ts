/** Seed nodes for the fake controller: a started qemu node whose console is telnet, the shape most tests need. */
import type { SeedNode } from './server.js';

/** A started qemu node with a telnet console at `host:port`; `over` changes any field (node type, template, tags…). */
export const telnetNode = (name: string, port: number, over: Partial<SeedNode> = {}): SeedNode => ({
  name,
  node_type: 'qemu',
  console_host: '127.0.0.1',
  console: port,
  console_type: 'telnet',
  status: 'started',
  ...over,
});

/** The GNS3 node in front of a test/lab FRR router: tagged `device_type:frr`, console where the lab put it. */
export const frrLabNode = (d: { name: string; consoleHost: string; consolePort: number }, over: Partial<SeedNode> = {}): SeedNode =>
  telnetNode(d.name, d.consolePort, { console_host: d.consoleHost, template_name: 'FRR', tags: ['device_type:frr'], ...over });

/** The GNS3 node in front of a test/lab VPCS PC: a `vpcs` node, console where the lab put it. */
export const vpcsLabNode = (d: { name: string; consolePort: number }, over: Partial<SeedNode> = {}): SeedNode =>
  telnetNode(d.name, d.consolePort, { node_type: 'vpcs', template_name: 'VPCS', ...over });

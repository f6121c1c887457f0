/** Topology nodes as the project scope returns them, for tests that hand the tools a topology directly. */
import type { TopologyNode } from '../../src/gns3/types.js';

/** A started qemu node with a telnet console on 127.0.0.1:5000, no template, tags or ports; `over` changes any field. */
export const topologyNode = (name: string, over: Partial<TopologyNode> = {}): TopologyNode => ({
  node_id: name,
  name,
  node_type: 'qemu',
  status: 'started',
  console: 5000,
  console_host: '127.0.0.1',
  console_type: 'telnet',
  template_id: null,
  template_name: null,
  tags: [],
  ports: [],
  x: 0,
  y: 0,
  ...over,
});

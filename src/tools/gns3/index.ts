import type { ToolDef } from '../types.js';
import { createGns3Link } from './create-link.js';
import { createGns3Node } from './create-node.js';
import { getGns3Templates } from './get-templates.js';
import { getGns3NodeConsole } from './node-console.js';
import { startGns3Node, stopGns3Node, suspendGns3Node } from './node-power.js';
import { manageGns3PacketFilter } from './packet-filter.js';
import { updateGns3NodeName } from './rename-node.js';
import { gns3TopologyReader } from './topology-reader.js';

export { asGns3Project } from './common.js';

/** Tools of this area, registered by ../registry.ts. */
export const gns3Tools: ToolDef[] = [
  getGns3Templates,
  createGns3Node,
  createGns3Link,
  startGns3Node,
  stopGns3Node,
  suspendGns3Node,
  updateGns3NodeName,
  gns3TopologyReader,
  getGns3NodeConsole,
  manageGns3PacketFilter,
];

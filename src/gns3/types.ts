/**
 * The controller-facing shapes other layers depend on. The client (./client.ts)
 * produces these from both API versions (v2, v3); device and agent code never
 * sees raw server JSON.
 */

export interface TopologyPort {
  name: string; // "Ethernet0"
  short_name: string; // "e0"
  adapter_number: number;
  port_number: number;
  /** id of the link using this port, null when free */
  link_id: string | null;
}

export interface TopologyNode {
  node_id: string;
  name: string;
  node_type: string; // vpcs, qemu, dynamips, iou, docker, ethernet_switch …
  status: string; // 'started' | 'stopped' | 'suspended'
  console: number | null;
  console_host: string | null;
  console_type: string | null; // telnet | none | vnc | spice …
  template_id: string | null;
  /** template name when known; a platform hint for device drivers */
  template_name: string | null;
  /** `device_type:<x>` style tags and other hints (e.g. from node properties/labels) */
  tags: string[];
  ports: TopologyPort[];
  x: number;
  y: number;
  /** the compute it runs on; only when the controller has more than one */
  compute_id?: string;
}

export interface TopologyLinkEnd {
  node_id: string;
  node_name: string;
  adapter_number: number;
  port_number: number;
  port_name: string;
}

export interface TopologyLink {
  link_id: string;
  link_type: string;
  ends: TopologyLinkEnd[];
  /** e.g. {"packet_loss":[50]}; {} when none */
  filters: Record<string, unknown[]>;
  suspend: boolean;
  capturing: boolean;
}

export interface Topology {
  project_id: string;
  project_name: string;
  nodes: TopologyNode[];
  links: TopologyLink[];
  /** the controller's computes, only when there is more than one to choose from */
  computes?: TopologyCompute[];
}

export interface TopologyCompute {
  compute_id: string;
  name: string;
  host: string;
  connected: boolean;
}

export interface CaptureOptions {
  /** stop reading after this many seconds (default 10) */
  seconds?: number;
  /** stop reading after this many packets */
  packets?: number;
  data_link_type?: string;
  signal?: AbortSignal;
}

/**
 * The session's project, as tools see it. Implemented by the GNS3 client; the
 * device layer needs only getTopology(), the packet tools also capture().
 */
export interface ProjectScope {
  readonly projectId: string;
  readonly projectName: string;
  /** The project's topology; reads are cached briefly unless `fresh` (a verdict on the lab as it is now). */
  getTopology(signal?: AbortSignal, opts?: { fresh?: boolean }): Promise<Topology>;
  /** Start a capture on a link (by id, or "A:port<->B:port"/node pair), read the pcap
   *  stream for N seconds or N packets, stop the capture; returns the pcap bytes. */
  capture(link: string, opts: CaptureOptions): Promise<Uint8Array>;
}

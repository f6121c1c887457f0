/** Shapes of device and topology checkpoints, shared by capture, the store, diff and rewind. */

/** One device's capture: its configuration text, or why there is none. */
export interface Capture {
  config?: string;
  error?: string;
  /** the driver that answered (frr, cisco_ios, vpcs, …) */
  platform?: string;
}

/** What a topology-changing call touched, as it was before the call. */
export interface TopologyBefore {
  nodes: { node_id: string; name: string; status: string }[];
  links: { link_id: string; filters: Record<string, unknown[]>; suspend?: boolean }[];
}

/** What a topology-changing call created (ids). */
export interface TopologyCreated {
  nodes: string[];
  links: string[];
}

export interface DeviceCheckpoint {
  id: number;
  session_id: string;
  request_no: number;
  call_id: string | null;
  device: string;
  /** null when the capture failed (see error) */
  config: string | null;
  error: string | null;
  created_at: string;
}

export interface TopologyCheckpoint {
  id: number;
  session_id: string;
  request_no: number;
  call_id: string | null;
  before: TopologyBefore;
  created: TopologyCreated;
  created_at: string;
}

/** A request of a session as `diff`/`rewind --to N` count them: the user's prompts and the rewinds, in order. */
export interface SessionRequest {
  no: number;
  kind: 'prompt' | 'rewind';
  /** the prompt's first line, or `rewind to before N` */
  text: string;
  created_at: string;
}

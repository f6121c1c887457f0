/** Shapes of a named lab checkpoint: the whole lab of a project saved under a name (./named-store.ts). */

/** A node as the checkpoint keeps it: what a restore can set back (name, status) and what identifies it. */
export interface SavedNode {
  node_id: string;
  name: string;
  node_type: string;
  status: string;
  template_name: string | null;
  console_type: string | null;
  x: number;
  y: number;
}

export interface SavedLinkEnd {
  node_id: string;
  node_name: string;
  adapter_number: number;
  port_number: number;
  port_name: string;
}

export interface SavedLink {
  link_id: string;
  ends: SavedLinkEnd[];
  filters: Record<string, unknown[]>;
  suspend: boolean;
}

export interface SavedTopology {
  nodes: SavedNode[];
  links: SavedLink[];
}

/** One node's configuration in the checkpoint, or why it was not saved (no capture driver, no console, stopped …). */
export interface SavedDevice {
  device: string;
  node_id: string;
  platform: string | null;
  /** null when it was not saved (see error) */
  config: string | null;
  error: string | null;
}

export interface LabCheckpoint {
  id: number;
  /** the controller's URL, as the checkpoint's key (scheme, host, port, path) */
  controller: string;
  project_id: string;
  project_name: string;
  name: string;
  note: string | null;
  topology: SavedTopology;
  devices: SavedDevice[];
  created_at: string;
}

/** A line of `checkpoint list`. */
export interface LabCheckpointSummary {
  name: string;
  note: string | null;
  project_name: string;
  created_at: string;
  nodes: number;
  links: number;
  saved: number;
  not_saved: number;
}

/** A restore being run (or killed half way: `running` with no `finished_at`). */
export interface LabRestoreRow {
  id: number;
  checkpoint_id: number;
  /** the devices it was limited to (null: the whole lab) */
  devices: string[] | null;
  status: 'running' | 'done' | 'partial';
  started_at: string;
  finished_at: string | null;
}

/**
 * What a tool call touches, as its tool declares it (src/tools/targets.ts): the shapes
 * shared by the dispatch, the checkpoints taken before a change, the approval preview
 * and the TUI's call lines.
 */
export interface TargetDevice {
  name: string;
  /** the lines the call sends to it (may be empty: a node that is stopped) */
  commands: string[];
}

export interface TargetNode {
  /** current name or id; absent for a node to be created without a name */
  name?: string;
  /** create: the template */
  template?: string;
  /** rename: the new name */
  newName?: string;
}

export interface TargetLink {
  /** `R1 e0` (a node and port), or the link as the model named it (an id, `R1:e0 R2:e0`) */
  a: string;
  b?: string;
}

export interface ToolTargets {
  devices?: TargetDevice[];
  nodes?: TargetNode[];
  links?: TargetLink[];
  /** device configuration: the devices are checkpointed before the call runs */
  changesConfig?: boolean;
  /** the change is verified against a baseline of its devices' state: the read before it reads that state too */
  baseline?: boolean;
  /** the topology (nodes, links, their status and filters): their before-state is recorded */
  changesTopology?: boolean;
}

export type TargetsFn = (args: Record<string, unknown>) => ToolTargets;

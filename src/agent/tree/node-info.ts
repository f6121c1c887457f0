import type { TaskBrief } from './brief.js';

/** Where a run sits in the tree; absent on the root's RunControl. */
export interface AgentNodeInfo {
  id: string;
  parent_id: string;
  root_id: string;
  depth: number;
  /** the brief this node runs (recursive): its constraints and refs pass on */
  brief?: TaskBrief;
}

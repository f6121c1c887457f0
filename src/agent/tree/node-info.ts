import type { Lineage, TaskBrief } from './brief.js';

/** Where a run sits in the tree (its lineage and brief); absent on the root's RunControl. */
export interface AgentNodeInfo extends Lineage {
  /** the brief this node runs (recursive): its constraints and refs pass on */
  brief?: TaskBrief;
}

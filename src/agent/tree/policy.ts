/**
 * The one place where flat and recursive sub-agents differ. The engine
 * (./engine.ts) runs children the same way in both modes and asks this object what
 * is allowed: depth, quota, arguments, scheduling, tools, budget.
 */
import type { AgentMode } from '../../core/events.js';
import { toolAllowed, type CopilotMode } from '../../core/modes.js';

export const AGENT_TOOL = 'agent';
/** reviews the reports of its own sub-agents: only an agent that may delegate needs it */
const REVIEW_TOOL = 'review_task';
const delegating = (tool: string) => tool === AGENT_TOOL || tool === REVIEW_TOOL;

export interface Schedule {
  parallel: boolean;
  /** children of one batch running at once */
  max: number;
}

export interface TreePolicy {
  mode: AgentMode;
  /** deepest child; a child at this depth never gets `agent` */
  maxDepth: number;
  /** direct children per parent over its lifetime (undefined: no quota) */
  quotaPerParent?: number;
  /** ContextRef snapshots one brief may grant */
  maxRefs: number;
  /** tools a child may ever get (besides the other filters) */
  childAllowed(tool: string): boolean;
  /** tools a child at `depth` may get */
  allowedAtDepth(tool: string, depth: number): boolean;
  schedule(settings: { child_execution_mode: 'sequential' | 'parallel'; max_parallel_children: number }, batch: number): Schedule;
  /** whether the tree budget applies */
  budgeted: boolean;
}

export const flatPolicy: TreePolicy = {
  mode: 'flat',
  maxDepth: 1,
  maxRefs: 0,
  childAllowed: () => true,
  allowedAtDepth: (tool, depth) => !delegating(tool) || depth < 1,
  // a flat batch runs all at once
  schedule: (_s, batch) => ({ parallel: true, max: Math.max(1, batch) }),
  budgeted: false,
};

export const recursivePolicy: TreePolicy = {
  mode: 'recursive',
  maxDepth: 5,
  quotaPerParent: 6,
  maxRefs: 8,
  childAllowed: () => true,
  allowedAtDepth: (tool, depth) => !delegating(tool) || depth < 5,
  schedule: (s) => (s.child_execution_mode === 'parallel' ? { parallel: true, max: s.max_parallel_children } : { parallel: false, max: 1 }),
  budgeted: true,
};

export function policyFor(mode: AgentMode): TreePolicy {
  return mode === 'recursive' ? recursivePolicy : flatPolicy;
}

/**
 * A child's frozen tool set: the parent's effective tools ∩ registered tools ∩ tools
 * allowed to children ∩ tools allowed at the child's depth ∩ the copilot mode's tools.
 * Order follows the parent's list (the schema order the model sees).
 */
export function childToolSet(
  p: TreePolicy,
  a: { parentTools: readonly string[]; registered: (name: string) => boolean; mode: CopilotMode; depth: number },
): string[] {
  return a.parentTools.filter(
    (t) => a.registered(t) && p.childAllowed(t) && p.allowedAtDepth(t, a.depth) && a.depth <= p.maxDepth && toolAllowed(a.mode, t),
  );
}

/**
 * Who calls a tool: the root agent, a sub-agent or Validator of the task tree, an MCP
 * client, or the CLI itself (a `rewind`). The gate judges a call by its caller (which
 * tools it may see), and the tool's context carries it (whose change a checkpoint is).
 */
export type CallerKind = 'agent' | 'validator' | 'mcp' | 'cli';

export interface Caller {
  kind: CallerKind;
  /** the task-tree node (absent: the root agent, an MCP client, the CLI) */
  agentId?: string;
  /** depth in the task tree; 0 for the root and for callers outside a tree */
  depth: number;
  /** a sub-agent's frozen tool set (absent: every tool of the copilot mode) */
  tools?: ReadonlySet<string>;
  /** context the caller was granted by its parent (ids the task-tree protocol resolves) */
  contextRefs?: readonly string[];
  /** reviews that must settle before this caller's work counts as done */
  pendingReviews?: readonly string[];
}

export const ROOT_AGENT: Caller = Object.freeze({ kind: 'agent', depth: 0 });
export const MCP_CLIENT: Caller = Object.freeze({ kind: 'mcp', depth: 0 });
export const CLI_CALLER: Caller = Object.freeze({ kind: 'cli', depth: 0 });

/**
 * The TUI's view types for one turn and its tool calls (shared by the reducer in
 * ./state.ts and the sub-agent folding in ./tree.ts).
 */
import type { ApprovalDecision } from '../core/api.js';
import type { ErrorType, RunStats, StoppedReason, ToolStatus } from '../core/events.js';
import type { Verification } from '../core/verification.js';
import type { CallCheckpoint } from '../core/regressions.js';

export type ToolCallState = 'pending' | 'awaiting_approval' | 'running' | ToolStatus;

export interface ToolCallView {
  id: string;
  name: string;
  args: Record<string, unknown>;
  summary: string;
  state: ToolCallState;
  /** ms timestamp when tool_start arrived (elapsed time while running) */
  startedAt?: number;
  durationMs?: number;
  output?: string;
  /** the tool's short line (tool_end `display`) */
  display?: string;
  /** the automatic verification of a configuration change (the `verification` event) */
  verification?: Verification;
  /** what was checkpointed before the call ran (`checkpoint` events without error) */
  checkpointed?: string[];
  /** the stored device checkpoints among them (`checkpoint_id`): what a regression's rewind of this call restores */
  checkpoints?: CallCheckpoint[];
  /** what the person answered when asked */
  decision?: ApprovalDecision['kind'];
  /** transient failures retried so far (tool_retry) */
  retry?: { attempt: number; max: number };
  /** an `agent` call: its sub-agents' tool calls, in arrival order (depth for indentation) */
  children?: ChildCallView[];
}

export type TurnItem = { kind: 'text'; text: string } | { kind: 'tool'; call: ToolCallView };

export interface TurnView {
  id: number;
  prompt: string;
  items: TurnItem[];
  startedAt: number;
  error?: { type: ErrorType; message: string };
  stoppedReason?: StoppedReason;
  stats?: RunStats;
}

export interface ChildCallView extends ToolCallView {
  depth: number;
  agent_id: string;
}

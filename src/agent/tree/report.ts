/**
 * The TaskReport a child ends with: its result (the final answer), the
 * evidence taken from the tool calls it really made (not from what it claims), and
 * open issues (a stop, blocked or failed calls). The parent model reads it as the
 * `agent` tool's result.
 */
import type { BaseMessage } from '@langchain/core/messages';
import type { StoppedReason } from '../../core/events.js';
import { messageText } from '../../sessions/message-text.js';
import type { NodeStatus } from '../../sessions/tree-store.js';
import { trajectoryOf, type Renamed } from './trajectory.js';
import type { ValidationResult } from './validation-result.js';

export interface Evidence {
  tool_call_id: string;
  tool: string;
  /** nodes and devices the call touched (its arguments, under any argument name) and that its result returned */
  devices: string[];
  status: string;
  /** names the controller gave instead of the ones asked for */
  renamed?: Renamed[];
}

export interface TaskReport {
  agent_id: string;
  depth: number;
  goal: string;
  status: NodeStatus;
  stopped_reason?: StoppedReason | 'budget';
  result: string;
  evidence: Evidence[];
  open_issues: string[];
  /** the Validator's verdict (recursive; stored apart from the report, added when the parent reads it) */
  validation?: ValidationResult;
}

export function buildReport(a: {
  agent_id: string;
  depth: number;
  goal: string;
  messages: BaseMessage[];
  from: number;
  stop: StoppedReason | 'budget';
  error?: string;
}): TaskReport {
  const msgs = a.messages.slice(a.from);
  const evidence: Evidence[] = trajectoryOf(msgs).map((c) => ({
    tool_call_id: c.id,
    tool: c.tool,
    devices: [...new Set([...c.targets, ...c.returned])],
    status: c.status,
    ...(c.renamed.length ? { renamed: c.renamed } : {}),
  }));
  const last = [...msgs].reverse().find((m) => m.getType() === 'ai' && messageText(m).trim());
  const open: string[] = [];
  for (const e of evidence) if (e.status !== 'success') open.push(`${e.tool} (${e.tool_call_id}) ${e.status}`);
  if (a.error) open.push(`failed: ${a.error}`);
  else if (a.stop !== 'done') open.push(`stopped before finishing: ${a.stop}`);
  const status: NodeStatus = a.error ? 'failed' : a.stop === 'done' ? 'completed' : 'stopped';
  return {
    agent_id: a.agent_id,
    depth: a.depth,
    goal: a.goal,
    status,
    ...(a.stop !== 'done' ? { stopped_reason: a.stop } : {}),
    result: last ? messageText(last).trim() : '',
    evidence,
    open_issues: open,
  };
}

/** The report of a queued child that was stopped before it started. */
export function notStartedReport(agentId: string, depth: number, goal: string): TaskReport {
  return {
    agent_id: agentId,
    depth,
    goal,
    status: 'stopped',
    stopped_reason: 'aborted',
    result: '',
    evidence: [],
    open_issues: ['stopped before it started'],
  };
}

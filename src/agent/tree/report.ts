/**
 * The TaskReport a child ends with: its result (the final answer), the
 * evidence taken from the tool calls it really made (not from what it claims), and
 * open issues (a stop, blocked or failed calls). The parent model reads it as the
 * `agent` tool's result.
 */
import type { AIMessage, BaseMessage, ToolMessage } from '@langchain/core/messages';
import type { StoppedReason } from '../../core/events.js';
import { messageText } from '../tokens.js';
import type { NodeStatus } from '../../sessions/tree-store.js';

export interface Evidence {
  tool_call_id: string;
  tool: string;
  devices: string[];
  status: string;
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
}

function devicesOf(args: Record<string, unknown>): string[] {
  const out = new Set<string>();
  const visit = (v: unknown, key?: string): void => {
    if (Array.isArray(v)) v.forEach((x) => visit(x, key));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) visit(x, k);
    else if (typeof v === 'string' && key && /^(device_name|node_name|device|node)$/.test(key)) out.add(v);
  };
  visit(args);
  return [...out];
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
  const statusOf = new Map<string, string>();
  for (const m of msgs)
    if (m.getType() === 'tool') {
      const t = m as ToolMessage;
      statusOf.set(t.tool_call_id, String((t.additional_kwargs as { copilot_status?: string }).copilot_status ?? t.status ?? 'success'));
    }
  const evidence: Evidence[] = [];
  for (const m of msgs)
    if (m.getType() === 'ai')
      for (const c of (m as AIMessage).tool_calls ?? [])
        evidence.push({
          tool_call_id: c.id ?? '',
          tool: c.name,
          devices: devicesOf((c.args ?? {}) as Record<string, unknown>),
          status: statusOf.get(c.id ?? '') ?? 'not_run',
        });
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

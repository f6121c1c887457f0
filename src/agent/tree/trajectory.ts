/**
 * A child's trajectory as the Validator reads it: each tool call it made, with its
 * arguments, status and (capped) result, paired from the stored conversation. Also
 * what a call touched: the nodes and devices named in its arguments under any of the
 * tools' argument names, and the names its result returned (a controller may name a
 * node other than asked: `requested_name` ≠ `name`).
 */
import type { AIMessage, BaseMessage, ToolMessage } from '@langchain/core/messages';
import { messageText } from '../../sessions/message-text.js';

export interface Renamed {
  requested: string;
  name: string;
}

export interface TrajectoryCall {
  id: string;
  tool: string;
  args: Record<string, unknown>;
  status: string;
  output: string;
  /** nodes and devices the arguments name */
  targets: string[];
  /** node and device names the result returned */
  returned: string[];
  /** names the controller gave instead of the ones asked for */
  renamed: Renamed[];
}

/** Argument keys whose string values name a node or device, in every tool's schema. */
const TARGET_KEYS = new Set(['device_name', 'node_name', 'device', 'node', 'node_a', 'node_b', 'new_name', 'devices']);
/** List arguments whose items' `name` is a node's name (`create_gns3_node {nodes: [{name}]}`). */
const NAMED_LISTS = new Set(['nodes']);

export function argTargets(args: Record<string, unknown>): string[] {
  const out = new Set<string>();
  const visit = (v: unknown, key: string | undefined, list: string | undefined): void => {
    if (Array.isArray(v)) v.forEach((x) => visit(x, key, key));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) visit(x, k, list);
    else if (typeof v === 'string' && key && (TARGET_KEYS.has(key) || (key === 'name' && list && NAMED_LISTS.has(list)))) out.add(v);
  };
  visit(args, undefined, undefined);
  return [...out];
}

function parseJson(text: string): unknown {
  const t = text.trim();
  if (!t.startsWith('{') && !t.startsWith('[')) return undefined;
  try {
    return JSON.parse(t);
  } catch {
    return undefined;
  }
}

/** Names a result returned: nodes (`name` beside a `node_id`) and devices, plus renames. */
export function resultNames(output: string): { returned: string[]; renamed: Renamed[] } {
  const returned = new Set<string>();
  const renamed: Renamed[] = [];
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (typeof o.name === 'string' && ('node_id' in o || 'requested_name' in o)) returned.add(o.name);
      for (const k of ['device_name', 'node_name']) if (typeof o[k] === 'string') returned.add(o[k]);
      if (typeof o.requested_name === 'string' && typeof o.name === 'string' && o.requested_name !== o.name)
        renamed.push({ requested: o.requested_name, name: o.name });
      for (const x of Object.values(o)) if (x && typeof x === 'object') visit(x);
    }
  };
  visit(parseJson(output));
  return { returned: [...returned], renamed };
}

function statusOf(t: ToolMessage): string {
  return String((t.additional_kwargs as { copilot_status?: string }).copilot_status ?? t.status ?? 'success');
}

/** The tool calls of a conversation with their results (a call without one is `not_run`). */
export function trajectoryOf(messages: readonly BaseMessage[]): TrajectoryCall[] {
  const results = new Map<string, ToolMessage>();
  for (const m of messages) if (m.getType() === 'tool') results.set((m as ToolMessage).tool_call_id, m as ToolMessage);
  const out: TrajectoryCall[] = [];
  for (const m of messages)
    if (m.getType() === 'ai')
      for (const c of (m as AIMessage).tool_calls ?? []) {
        const args = (c.args ?? {}) as Record<string, unknown>;
        const r = results.get(c.id ?? '');
        const output = r ? messageText(r) : '';
        out.push({
          id: c.id ?? '',
          tool: c.name,
          args,
          status: r ? statusOf(r) : 'not_run',
          output,
          targets: argTargets(args),
          ...resultNames(output),
        });
      }
  return out;
}

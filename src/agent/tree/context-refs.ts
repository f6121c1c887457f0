/**
 * Context refs (recursive trees): what a parent may grant a child in its brief — its own
 * tool results (stored whole once per tree) and refs granted to it, edge by edge — and the
 * slices a child reads of the refs granted to it (`read_context_ref`).
 */
import type { BaseMessage, ToolMessage } from '@langchain/core/messages';
import type { TreeStore } from '../../sessions/tree-store.js';
import { messageText } from '../../sessions/message-text.js';
import { refListing, type ContextRef } from './brief.js';
import type { AgentNodeInfo } from './node-info.js';
import { DelegationRefused } from './refused.js';

export interface RefSlice {
  ref: ContextRef;
  content: string;
  next_offset?: number;
}

/**
 * The refs a parent grants: refs granted to it, else its own tool results (`own`: its
 * thread's messages). Only stored here; each child is granted them once its batch is registered.
 */
export async function resolveRefs(
  t: { trees: TreeStore; rootId: string; maxRefs: number; own(): Promise<BaseMessage[]> },
  ids: string[],
  parent: AgentNodeInfo | undefined,
): Promise<ContextRef[]> {
  if (ids.length === 0) return [];
  if (ids.length > t.maxRefs) throw new DelegationRefused(`at most ${t.maxRefs} context_refs per brief (got ${ids.length})`);
  const own = await t.own();
  const out: ContextRef[] = [];
  for (const id of ids) {
    const held = parent ? t.trees.grantedRef(t.rootId, parent.id, id) : undefined;
    if (held) {
      out.push(refListing(held.id, held.source, held.content));
      continue;
    }
    const m = own.find((x) => x.getType() === 'tool' && (x as ToolMessage).tool_call_id === id) as ToolMessage | undefined;
    if (!m) throw new DelegationRefused(`context_ref "${id}" is not a tool result or context ref you hold; no sub-agent was started`);
    const content = messageText(m);
    const stored = t.trees.storeRef(t.rootId, { id, source: m.name ?? 'tool', content });
    out.push(refListing(stored, m.name ?? 'tool', content));
  }
  return out;
}

/** A slice of a ref granted to `agent` (the root reads its own tool results in its history). */
export function readGrantedRef(
  trees: TreeStore,
  rootId: string,
  agent: AgentNodeInfo | undefined,
  q: { refId: string; offset: number; limit: number },
): RefSlice {
  if (!agent) throw new DelegationRefused('context refs are granted to sub-agents; the root reads its own tool results in its history');
  const r = trees.grantedRef(rootId, agent.id, q.refId);
  if (!r) {
    const held = trees.heldRefIds(agent.id);
    throw new DelegationRefused(
      `context ref "${q.refId}" was not granted to you; you hold ${held.length ? held.map((h) => `"${h}"`).join(', ') : 'none'}`,
    );
  }
  const content = r.content.slice(q.offset, q.offset + q.limit);
  const end = q.offset + content.length;
  return { ref: refListing(r.id, r.source, r.content), content, ...(end < r.content.length ? { next_offset: end } : {}) };
}

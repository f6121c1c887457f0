/**
 * Context refs (recursive trees): what a parent may grant a child in its brief — its own
 * tool results (stored whole once per tree) and refs granted to it, edge by edge — and the
 * slices a child reads of the refs granted to it (`read_context_ref`). Every session also keeps
 * its cut tool results here whole, granted to the agent that ran the call (../result-cut.ts).
 */
import type { BaseMessage, ToolMessage } from '@langchain/core/messages';
import type { TreeStore } from '../../sessions/tree-store.js';
import { messageText } from '../../sessions/message-text.js';
import { refListing, type ContextRef } from './brief.js';
import type { AgentNodeInfo } from './node-info.js';
import { DelegationRefused } from './refused.js';

export interface RefSlice {
  ref: ContextRef;
  /** the first character read */
  offset: number;
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
    // a ref held (granted, or a cut result stored whole) is granted whole, not its cut text
    const held = t.trees.grantedRef(t.rootId, parent?.id ?? t.rootId, id);
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

/**
 * A slice of a ref held by agent `holder` (the root when undefined: its cut tool results): from
 * `line` (1-based) when given, else from character `offset`; `fit` shortens it to the page's
 * token bound (whole lines where it can), and `next_offset` says where to read on.
 */
export function readGrantedRef(
  trees: TreeStore,
  rootId: string,
  holderId: string | undefined,
  q: { refId: string; offset: number; line?: number; limit: number; fit?: (s: string) => string },
): RefSlice {
  const holder = holderId ?? rootId;
  const r = trees.grantedRef(rootId, holder, q.refId);
  if (!r) {
    const held = trees.heldRefIds(holder);
    throw new DelegationRefused(
      `context ref "${q.refId}" was not granted to you; you hold ${held.length ? held.map((h) => `"${h}"`).join(', ') : 'none'}`,
    );
  }
  const offset = q.line !== undefined ? lineStart(r.content, q.line) : q.offset;
  const slice = r.content.slice(offset, offset + q.limit);
  const content = q.fit ? q.fit(slice) : slice;
  const end = offset + content.length;
  return {
    ref: refListing(r.id, r.source, r.content),
    offset,
    content,
    ...(end < r.content.length ? { next_offset: end } : {}),
  };
}

/** Where line `line` (1-based) starts; past the last line, the end. */
function lineStart(text: string, line: number): number {
  let at = 0;
  for (let n = 1; n < line; n++) {
    const nl = text.indexOf('\n', at);
    if (nl < 0) return text.length;
    at = nl + 1;
  }
  return at;
}

/**
 * Stop requests from another process (`gns3-copilot sessions stop`): a row in the
 * sessions DB's `tree_stop_requests`, taken by the process running the session's
 * request, which polls for it while the request runs. The agent id is a sub-agent's
 * (it and its subtree stop) or the session's own id (the whole request stops).
 */
import type { AgentNodeRow, TreeStore } from '../../sessions/tree-store.js';

/** How often a running request looks for stop requests: well within the second the command promises. */
export const STOP_POLL_MS = 200;

/**
 * Polls for stop requests until the returned function is called. A request written
 * before this request started was meant for an earlier one: it is not taken (the
 * command that wrote it withdraws it and says nothing was running).
 */
export function watchStopRequests(
  trees: TreeStore,
  rootId: string,
  onStop: (agentId: string) => void,
  intervalMs = STOP_POLL_MS,
): () => void {
  const since = new Date().toISOString();
  const timer = setInterval(() => {
    let ids: string[];
    try {
      ids = trees.takeStopRequests(rootId, since);
    } catch {
      return; // the DB is busy: the next tick looks again
    }
    for (const id of ids) onStop(id);
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** A stop asked for by id: the node that stops, or why nothing does. */
export type StopTarget = { node: AgentNodeRow } | { refused: string };

/**
 * The running (or queued) sub-agent of a tree an id, or a unique prefix of one, names
 * (`/tree` and `sessions show` print 8 characters); otherwise why none is.
 */
export function runningAgent(trees: TreeStore, rootId: string, idOrPrefix: string): StopTarget {
  const want = idOrPrefix.trim().toLowerCase();
  const hits = want ? trees.nodes(rootId).filter((n) => n.id.startsWith(want)) : [];
  const node = hits.find((n) => n.id === want) ?? (hits.length === 1 ? hits[0] : undefined);
  if (!node)
    return {
      refused: hits.length
        ? `"${want}" names ${hits.length} sub-agents of session ${rootId.slice(0, 8)}: give more of the id`
        : `no sub-agent "${want}" in session ${rootId.slice(0, 8)} (see /tree or \`sessions show\`)`,
    };
  if (node.status !== 'queued' && node.status !== 'running')
    return { refused: `sub-agent ${node.id.slice(0, 8)} is not running (${node.status})` };
  return { node };
}

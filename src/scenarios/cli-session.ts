/**
 * The session faults applied without an LLM belong to. The fault ledger hangs every fault on
 * a session (an agent's, or the MCP server's); `inject --scenario` has no conversation, so
 * each GNS3 controller + project gets one session of its own in sessions.db, in inject mode,
 * titled "CLI faults (inject --scenario)". Its id is derived from the controller and the
 * project, so every run (and every process of a class run) finds the same one. Each run is a
 * request of it (a user line naming what was injected) and its changes are checkpointed
 * there, so `faults --session`, `sessions show`, `diff` and `rewind` treat CLI faults as they
 * treat an agent's. docs/checks-and-faults.md, Faults from the scenario library.
 */
import { createHash } from 'node:crypto';
import type { Checkpointer } from '../checkpoints/batch.js';
import type { CaptureContext } from '../checkpoints/capture.js';
import type { SessionStore } from '../sessions/store.js';

export const CLI_SESSION_TITLE = 'CLI faults (inject --scenario)';

/** A UUID-shaped id from the controller URL and the project id (same inputs, same id). */
export function cliSessionId(server: string, projectId: string): string {
  const h = createHash('sha256')
    .update(`gns3-copilot cli faults\0${server.replace(/\/+$/, '').toLowerCase()}\0${projectId}`)
    .digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The project's CLI session, created on first use. */
export function cliSession(store: SessionStore, server: string, project: { projectId: string; projectName: string }): string {
  const id = cliSessionId(server, project.projectId);
  if (store.get(id)) return id;
  try {
    store.create({
      id,
      copilot_mode: 'troubleshooting_injection',
      agent_mode: 'flat',
      project_id: project.projectId,
      project_name: project.projectName,
    });
    store.setTitle(id, CLI_SESSION_TITLE);
  } catch (err) {
    // another process of the same class run created it first
    if (!store.get(id)) throw err;
  }
  return id;
}

/**
 * Checkpoints of one run's changes under the CLI session: the run is one request, a user
 * line (`inject --scenario ospf_hello_interval_mismatch on R1 …`) in the session's log, so
 * `rewind --to N` numbers it as it numbers an agent's prompts.
 */
export async function cliCheckpointer(
  store: SessionStore,
  sessionId: string,
  requestText: string,
  context: (signal: AbortSignal) => CaptureContext,
): Promise<Checkpointer> {
  const [{ CheckpointStore }, { sessionCheckpointer }, { HumanMessage }] = await Promise.all([
    import('../checkpoints/store.js'),
    import('../checkpoints/batch.js'),
    import('@langchain/core/messages'),
  ]);
  const checkpoints = new CheckpointStore(store.db);
  let requestNo: number | undefined;
  const nextRequest = store.db.transaction((text: string): number => {
    store.saver.log.append(sessionId, store.saver.log.head(sessionId).count, [new HumanMessage(text)]);
    return checkpoints.currentRequestNo(sessionId);
  });
  return sessionCheckpointer({
    store: checkpoints,
    sessionId,
    // one request per run, however many batches it sends
    requestNo: () => (requestNo ??= nextRequest.immediate(requestText)),
    context,
  });
}

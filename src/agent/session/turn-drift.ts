/**
 * Drift around one request (../drift.ts): at its start, the lab now against what the
 * session last saw; at its end, what it sees now is stored (sessions.db, seen_topology)
 * for the next request, whichever process runs it. A read that fails is logged and
 * tells nothing: drift never fails a request.
 */
import type { Logger } from '../../log.js';
import type { SessionStore } from '../../sessions/store.js';
import { SeenTopologyStore } from '../../sessions/seen-topology.js';
import { seenOf, seenTopologyOf } from '../../gns3/topology-diff.js';
import { errorMessage } from '../../errors.js';
import { driftSince, type Drift } from '../drift.js';
import type { SessionProject } from './project.js';

/** How long storing the topology at the end of a request may take (the request's own signal may be aborted by then). */
const END_READ_MS = 10_000;

export interface TurnDrift {
  start(signal: AbortSignal): Promise<Drift | undefined>;
  end(): Promise<void>;
}

export function turnDrift(h: { store: SessionStore; sessionId: string; project: SessionProject; log: Logger }): TurnDrift {
  const seen = new SeenTopologyStore(h.store.db);
  return {
    async start(signal) {
      try {
        const now = await h.project.current(signal);
        const d = now ? driftSince(seenTopologyOf(seen.get(h.sessionId)?.topology), now) : undefined;
        if (d) h.log.info('lab drift since the last request', { changes: d.event.changes, total: d.event.total });
        return d;
      } catch (err) {
        h.log.warn('drift: the topology could not be read', { error: errorMessage(err) });
        return undefined;
      }
    },
    async end() {
      try {
        const now = await h.project.current(AbortSignal.timeout(END_READ_MS));
        if (now) seen.set(h.sessionId, seenOf(now));
      } catch (err) {
        h.log.warn('drift: the topology seen at the end of the request could not be stored', { error: errorMessage(err) });
      }
    },
  };
}

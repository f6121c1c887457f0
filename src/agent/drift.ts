/**
 * Drift: what changed in the lab between two requests of a session that the copilot did
 * not do itself. The topology a session last saw is stored when each request ends (after
 * its own tool calls: their effects are in it); at the start of the next request the lab
 * as it is now is compared with it, and the model reads the changes in one protocol note
 * before the user's message — the same in a TUI, a `-c`/`-r` run or a reopened session, with
 * or without the notification stream. The front ends get a `drift` event.
 */
import type { HumanMessage } from '@langchain/core/messages';
import type { EventOf } from '../core/events.js';
import { driftText } from '../core/drift-text.js';
import type { Topology } from '../gns3/types.js';
import { seenOf, topologyChanges, type SeenTopology } from '../gns3/topology-diff.js';
import { protocolNote } from './tree/protocol-notes.js';

/** At most this many changes are named (in the note and the event); the rest are counted. */
export const DRIFT_MAX_CHANGES = 20;

export interface Drift {
  event: EventOf<'drift'>;
  note: HumanMessage;
}

/** The drift from what the session last saw to the lab now; undefined when nothing changed or there is nothing to compare. */
export function driftSince(seen: SeenTopology | undefined, now: Topology): Drift | undefined {
  if (!seen || seen.project_id !== now.project_id) return undefined;
  const all = topologyChanges(seen, seenOf(now));
  if (all.length === 0) return undefined;
  const event: EventOf<'drift'> = { type: 'drift', changes: all.slice(0, DRIFT_MAX_CHANGES), total: all.length };
  return {
    event,
    note: protocolNote(
      'lab_drift',
      `[lab] Since your last turn, someone else changed the lab (not your tool calls): ${driftText(event)}. The topology in the system prompt is the current one.`,
    ),
  };
}

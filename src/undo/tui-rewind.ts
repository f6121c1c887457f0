/** The TUI's /rewind: what it offers (the session's requests) and the rewind itself, approved in the TUI's box. */
import type { Settings } from '../config/schema.js';
import type { Approver } from '../core/api.js';
import type { SessionStore } from '../sessions/store.js';
import { CheckpointStore } from '../checkpoints/store.js';
import type { SessionRequest } from '../checkpoints/types.js';
import type { RewindReport } from './rewind.js';
import { findSession, withLab } from './rewind-lab.js';

/** The session's requests (prompts and rewinds), oldest first: what the TUI's /rewind offers. */
export function sessionRequests(store: SessionStore, sessionId: string): SessionRequest[] {
  return new CheckpointStore(store.db).requests(sessionId);
}

export interface TuiRewindOptions {
  sessionId: string;
  /** the lab as it was just before this request */
  to: number;
  /** only these devices (a regression's rewind); absent: everything the session changed since */
  devices?: string[];
  /** exactly these device checkpoints (a regression's rewind: the ones taken before the regressed call) */
  checkpoints?: number[];
  /** the TUI's approval box: every call of the restore is asked for there */
  approver: Approver;
  signal: AbortSignal;
  /** the plan (per device the commands and the diff they undo), before anything is asked */
  onPlan: (plan: RewindReport) => void;
  /** a rewind being resumed */
  notice: (text: string) => void;
}

/** The TUI's /rewind: the rewind of the command line, approved call by call in the TUI's approval box. */
export async function rewindFromTui(settings: Settings, store: SessionStore, o: TuiRewindOptions): Promise<RewindReport> {
  const row = findSession(store, o.sessionId, settings);
  const mode = row.copilot_mode;
  const unfinished = new CheckpointStore(store.db).unfinishedRewind(row.id);
  if (unfinished && unfinished.to_request === o.to) o.notice(`resuming the unfinished rewind to before request ${o.to}`);
  const { runRewind } = await import('./rewind.js');
  return withLab(
    settings,
    row,
    (deps) =>
      runRewind(deps, {
        sessionId: row.id,
        to: o.to,
        ...(o.devices ? { devices: o.devices } : {}),
        ...(o.checkpoints ? { checkpoints: o.checkpoints } : {}),
        mode,
        policy: settings.approve === 'never' ? 'never' : 'ask',
        approvalTools: settings.approval_tools,
        approver: o.approver,
        interactive: true,
        onPlan: o.onPlan,
      }),
    store,
    o.signal,
  );
}

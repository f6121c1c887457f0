/** What a session changes while it lives: the modes and limits the user sets, the lease once the row exists, the running request. */
import type { RequestLimits } from '../../core/api.js';
import type { CopilotMode } from '../../core/modes.js';
import type { SessionLease } from '../../sessions/lease.js';
import type { RunControl } from '../graph-deps.js';
import { limitsFromSettings } from '../limits.js';
import type { Resumed } from './resume.js';

export interface LiveState {
  mode: CopilotMode;
  limits: RequestLimits;
  lease: SessionLease | undefined;
  rowCreated: boolean;
  /** the root's run while a request runs */
  current: RunControl | undefined;
}

export function liveState(resume: Resumed): LiveState {
  return {
    mode: resume.mode,
    limits: limitsFromSettings(resume.settings),
    lease: resume.lease,
    rowCreated: resume.row !== undefined,
    current: undefined,
  };
}

import type { AgentSession, Approver } from '../../core/api.js';
import type { Settings } from '../../config/schema.js';
import { reportText, rewindSummary } from '../../undo/rewind-report.js';
import type { UiServices } from '../services.js';
import type { NoticeTone, UiAction } from '../state.js';
import { useEvent } from './useEvent.js';
import { useRestoreRun } from './useRestoreRun.js';

export interface RewindOptions {
  services: UiServices;
  settings: () => Settings;
  session: () => AgentSession | null;
  /** the TUI's approval box: the restore is asked for there, call by call */
  approver: Approver;
  notice: (text: string, tone?: NoticeTone) => void;
  dispatch: (action: UiAction) => void;
}

/**
 * /rewind once a request is picked: the plan (per device the commands and the diff they
 * undo) is printed, each call of the restore is asked for in the approval box, and the
 * outcome says per device `restored` or what remains. Esc aborts it like a turn.
 */
export function useRewind({ services, settings, session, approver, notice, dispatch }: RewindOptions) {
  const restoreRun = useRestoreRun({ what: 'A rewind', notice, dispatch });

  const rewindTo = useEvent(async (to: number) => {
    const s = session();
    if (!s) return notice('No session: nothing to rewind', 'warn');
    return restoreRun.run(`Rewinding the lab to just before request ${to}…`, async (signal) => {
      const report = await services.rewind(settings(), {
        sessionId: s.id,
        to,
        approver,
        signal,
        onPlan: (plan) => notice(reportText(plan, 'rewind').trimEnd()),
        notice: (text) => notice(text, 'warn'),
      });
      return rewindSummary(report);
    });
  });

  return { rewindTo, rewindRunning: restoreRun.isRunning, abortRewind: restoreRun.abort };
}

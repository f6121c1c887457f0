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

  /** A regression's rewind: only these devices, each to its checkpoint taken just before the regressed call. */
  const rewindDevices = useEvent(async (devices: string[], checkpoints: number[]) => {
    const s = session();
    if (!s) return notice('No session: nothing to rewind', 'warn');
    const to = (await services.sessionRequests(settings(), s.id)).at(-1)?.no;
    if (to === undefined) return notice('The session has no request to rewind', 'warn');
    return restoreRun.run(`Rewinding ${devices.join(', ')} to just before the regressed call…`, async (signal) =>
      rewindSummary(
        await services.rewind(settings(), {
          sessionId: s.id,
          to,
          devices,
          checkpoints,
          approver,
          signal,
          onPlan: (plan) => notice(reportText(plan, 'rewind').trimEnd()),
          notice: (text) => notice(text, 'warn'),
        }),
      ),
    );
  });

  return { rewindTo, rewindDevices, rewindRunning: restoreRun.isRunning, abortRewind: restoreRun.abort };
}

import { useCallback, useRef } from 'react';
import type { AgentSession, Approver } from '../../core/api.js';
import type { Settings } from '../../config/schema.js';
import { errorMessage } from '../../errors.js';
import { reportText, rewindSummary } from '../../undo/rewind-report.js';
import type { UiServices } from '../services.js';
import type { NoticeTone, UiAction } from '../state.js';
import { useEvent } from './useEvent.js';

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
  const running = useRef<AbortController | null>(null);

  const run = useEvent(async (to: number) => {
    const s = session();
    if (!s) return notice('No session: nothing to rewind', 'warn');
    if (running.current) return notice('A rewind is running already', 'warn');
    const ac = new AbortController();
    running.current = ac;
    notice(`Rewinding the lab to just before request ${to}…`);
    try {
      const report = await services.rewind(settings(), {
        sessionId: s.id,
        to,
        approver,
        signal: ac.signal,
        onPlan: (plan) => notice(reportText(plan, 'rewind').trimEnd()),
        notice: (text) => notice(text, 'warn'),
      });
      const { text, complete } = rewindSummary(report);
      notice(text, complete ? 'info' : 'error');
    } catch (err) {
      notice(`✗ ${errorMessage(err)}`, 'error');
    } finally {
      running.current = null;
      // the approval box put the asked calls in a live view; the outcome above says what became of them
      dispatch({ type: 'rewind_ended' });
    }
  });

  const rewindRunning = useCallback(() => running.current !== null, []);
  /** aborts a running rewind; false when none runs */
  const abortRewind = useCallback((): boolean => {
    if (!running.current) return false;
    running.current.abort();
    return true;
  }, []);

  return { rewindTo: run, rewindRunning, abortRewind };
}

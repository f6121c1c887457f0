import { useCallback, useRef } from 'react';
import type { Approver } from '../../core/api.js';
import type { Settings } from '../../config/schema.js';
import { errorMessage } from '../../errors.js';
import { namedReportText, namedRestoreSummary } from '../../undo/named-report.js';
import type { UiServices } from '../services.js';
import type { NoticeTone, UiAction } from '../state.js';
import { useEvent } from './useEvent.js';

export interface LabCheckpointOptions {
  services: UiServices;
  settings: () => Settings;
  /** the TUI's approval box: the restore is asked for there, call by call */
  approver: Approver;
  notice: (text: string, tone?: NoticeTone) => void;
  dispatch: (action: UiAction) => void;
}

/**
 * /checkpoint restore once a checkpoint is named or picked: the plan is printed, each call of
 * the restore is asked for in the approval box (as /rewind's), and the outcome says per device
 * `restored` or what remains. Esc aborts it like a turn.
 */
export function useLabCheckpoint({ services, settings, approver, notice, dispatch }: LabCheckpointOptions) {
  const running = useRef<AbortController | null>(null);

  const restore = useEvent(async (name: string, devices: string[] = []) => {
    if (running.current) return notice('A checkpoint restore is running already', 'warn');
    const ac = new AbortController();
    running.current = ac;
    notice(`Restoring checkpoint ${name}${devices.length ? ` on ${devices.join(', ')}` : ''}…`);
    try {
      const report = await services.restoreCheckpoint(settings(), {
        name,
        devices,
        approver,
        signal: ac.signal,
        onPlan: (plan) => {
          if (plan.resumed) notice(`resuming the unfinished restore of checkpoint ${name}`, 'warn');
          notice(namedReportText(plan, 'restore').trimEnd());
        },
      });
      const { text, complete } = namedRestoreSummary(report);
      notice(text, complete ? 'info' : 'error');
    } catch (err) {
      notice(`✗ ${errorMessage(err)}`, 'error');
    } finally {
      running.current = null;
      // the approval box put the asked calls in a live view; the outcome above says what became of them
      dispatch({ type: 'rewind_ended' });
    }
  });

  const restoreRunning = useCallback(() => running.current !== null, []);
  const abortRestore = useCallback((): boolean => {
    if (!running.current) return false;
    running.current.abort();
    return true;
  }, []);

  return { restoreCheckpoint: restore, restoreRunning, abortRestore };
}

import type { Approver } from '../../core/api.js';
import type { Settings } from '../../config/schema.js';
import { namedReportText, namedRestoreSummary } from '../../undo/named-report.js';
import type { UiServices } from '../services.js';
import type { NoticeTone, UiAction } from '../state.js';
import { useEvent } from './useEvent.js';
import { useRestoreRun } from './useRestoreRun.js';

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
  const restoreRun = useRestoreRun({ what: 'A checkpoint restore', notice, dispatch });

  const restore = useEvent((name: string, devices: string[] = []) =>
    restoreRun.run(`Restoring checkpoint ${name}${devices.length ? ` on ${devices.join(', ')}` : ''}…`, async (signal) => {
      const report = await services.restoreCheckpoint(settings(), {
        name,
        devices,
        approver,
        signal,
        onPlan: (plan) => {
          if (plan.resumed) notice(`resuming the unfinished restore of checkpoint ${name}`, 'warn');
          notice(namedReportText(plan, 'restore').trimEnd());
        },
      });
      return namedRestoreSummary(report);
    }),
  );

  return { restoreCheckpoint: restore, restoreRunning: restoreRun.isRunning, abortRestore: restoreRun.abort };
}

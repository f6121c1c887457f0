import { useCallback, useRef } from 'react';
import { errorMessage } from '../../errors.js';
import type { NoticeTone, UiAction } from '../state.js';
import { useEvent } from './useEvent.js';

/** What a restore run ends with: the summary line and whether every device was restored. */
export interface RestoreOutcome {
  text: string;
  complete: boolean;
}

export interface RestoreRunOptions {
  /** names the run in the "running already" warning, e.g. `A rewind` */
  what: string;
  notice: (text: string, tone?: NoticeTone) => void;
  dispatch: (action: UiAction) => void;
}

/**
 * One lab restore at a time that Esc can abort: /rewind and /checkpoint restore share it. `run`
 * announces the start, hands the work an abort signal, prints its outcome (an error when a device
 * was not restored) or its failure in one line, and ends the approval box's live view.
 */
export function useRestoreRun({ what, notice, dispatch }: RestoreRunOptions) {
  const running = useRef<AbortController | null>(null);

  const run = useEvent(async (start: string, work: (signal: AbortSignal) => Promise<RestoreOutcome>) => {
    if (running.current) return notice(`${what} is running already`, 'warn');
    const ac = new AbortController();
    running.current = ac;
    notice(start);
    try {
      const { text, complete } = await work(ac.signal);
      notice(text, complete ? 'info' : 'error');
    } catch (err) {
      notice(`✗ ${errorMessage(err)}`, 'error');
    } finally {
      running.current = null;
      // the approval box put the asked calls in a live view; the outcome above says what became of them
      dispatch({ type: 'rewind_ended' });
    }
  });

  const isRunning = useCallback(() => running.current !== null, []);
  /** aborts the running restore; false when none runs */
  const abort = useCallback((): boolean => {
    if (!running.current) return false;
    running.current.abort();
    return true;
  }, []);

  return { run, isRunning, abort };
}

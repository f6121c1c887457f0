import { useRef, type Dispatch, type SetStateAction } from 'react';
import { useInput, type Key } from 'ink';
import type { UiAction } from '../state.js';
import { DOUBLE_PRESS_MS } from './useFlashHint.js';
import type { Phase } from './usePhase.js';
import { useEvent } from './useEvent.js';

type KeyHandler = (input: string, key: Key) => void;

export interface KeyRoutes {
  /** false when stdin cannot do raw mode: no keys at all */
  enabled: boolean;
  exiting: () => boolean;
  exit: (code: number) => void;
  abortTurn: () => boolean;
  flashHint: (text: string) => void;
  phase: () => Phase;
  /** `r` on the controller-down screen */
  retry: () => void;
  /** a reached limit asks whether to raise it: y / a / n (Esc) */
  limitPending: () => boolean;
  onLimitKey: KeyHandler;
  /** a change regressed the lab: y rewinds it, n (Esc) keeps it */
  regressionPending: () => boolean;
  onRegressionKey: KeyHandler;
  approvalPending: () => boolean;
  typingFeedback: () => boolean;
  onApprovalKey: KeyHandler;
  pickerOpen: () => boolean;
  onPickerKey: KeyHandler;
  /** /map is drawn: arrows pan, r re-reads, Esc / q close */
  mapOpen: () => boolean;
  onMapKey: KeyHandler;
  /** whether a tool's output panel is open now */
  outputShown: () => boolean;
  dispatch: (a: UiAction) => void;
  setPanelOffset: Dispatch<SetStateAction<number>>;
  clearLine: () => void;
  onEditKey: KeyHandler;
}

/**
 * Routes every key: Ctrl-C / Ctrl-D first, then the controller-down screen, an approval,
 * a limit prompt, the picker, the map, the output panel keys, and the rest to the input line.
 */
export function useKeys(r: KeyRoutes): void {
  const lastCtrlC = useRef(0);
  const onKey = useEvent((input: string, key: Key) => {
    if (r.exiting()) return;
    if (key.ctrl && input === 'c') {
      const t = Date.now();
      if (t - lastCtrlC.current < DOUBLE_PRESS_MS) return r.exit(130);
      lastCtrlC.current = t;
      const aborted = r.abortTurn();
      r.flashHint(aborted ? 'Aborted. Press Ctrl-C again to exit.' : 'Press Ctrl-C again to exit.');
      return;
    }
    if (key.ctrl && input === 'd') return r.exit(0);
    if (r.phase().kind === 'down') {
      if (input === 'r') r.retry();
      if (input === 'q' || key.escape) r.exit(3);
      return;
    }
    if (r.limitPending()) return r.onLimitKey(input, key);
    if (r.regressionPending() && !r.approvalPending()) return r.onRegressionKey(input, key);
    if (r.approvalPending()) {
      if (key.escape && !r.typingFeedback()) {
        r.abortTurn();
        return;
      }
      return r.onApprovalKey(input, key);
    }
    if (r.pickerOpen()) return r.onPickerKey(input, key);
    if (r.mapOpen()) return r.onMapKey(input, key);
    if (key.escape) {
      if (r.abortTurn()) return r.flashHint('Aborted.');
      if (r.outputShown()) return r.dispatch({ type: 'toggle_output' });
      return r.clearLine();
    }
    if (key.ctrl && input === 'o') {
      r.setPanelOffset(0);
      return r.dispatch({ type: 'toggle_output' });
    }
    if (key.pageUp || key.pageDown) {
      if (r.outputShown()) r.setPanelOffset((o) => Math.max(0, o + (key.pageDown ? 10 : -10)));
      return;
    }
    r.onEditKey(input, key);
  });
  useInput(onKey, { isActive: r.enabled });
}

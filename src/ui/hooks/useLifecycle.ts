import type { InvocationOptions } from '../../config/schema.js';
import type { UiServices } from '../services.js';
import type { NoticeTone } from '../state.js';
import type { AgentParts } from './useAgentParts.js';
import { useBoot } from './useBoot.js';
import { useExit } from './useExit.js';
import type { LabParts } from './useLabParts.js';
import type { PhaseControl } from './usePhase.js';

export interface LifecycleOptions {
  services: UiServices;
  invocation: InvocationOptions;
  /** ms between automatic controller retries */
  retryMs: number;
  phase: PhaseControl;
  notice: (text: string, tone?: NoticeTone) => void;
  agent: AgentParts;
  lab: Pick<LabParts, 'pickers'>;
  /** stops the flash hint's timer on exit */
  stopHint: () => void;
  /** called once with the exit code before the app unmounts */
  onExit: (code: number) => void;
  unmount: () => void;
}

/** Start-up (reaching the controller, opening the session, `--prompt`) and the one way out. */
export function useLifecycle(o: LifecycleOptions) {
  const { turn, approvals, limitAsk, sessions } = o.agent;
  const { exit, isExiting } = useExit({
    // Runs only on exit, by when `boot` (declared below: it needs isExiting) exists.
    stop: () => {
      turn.abortTurn();
      approvals.denyPending();
      limitAsk.declinePending();
      boot.stopRetry();
      o.stopHint();
    },
    closeSession: sessions.closeSession,
    closeServices: () => o.services.close(),
    onExit: o.onExit,
    unmount: o.unmount,
  });
  const boot = useBoot({
    services: o.services,
    invocation: o.invocation,
    retryMs: o.retryMs,
    settings: sessions.settings,
    phase: o.phase,
    exiting: isExiting,
    notice: o.notice,
    openSession: sessions.openSession,
    openPicker: o.lab.pickers.openPicker,
    closePicker: o.lab.pickers.closePicker,
    runTurn: turn.runTurn,
  });
  return { exit, isExiting, boot };
}

export type Lifecycle = ReturnType<typeof useLifecycle>;

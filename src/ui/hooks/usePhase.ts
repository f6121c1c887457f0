import { useCallback, useRef } from 'react';
import { useRefState } from './useRefState.js';

/**
 * Where the TUI is: starting (checking the controller, then opening the session; the input line
 * already takes typing), showing the controller down (with retries), or ready.
 */
export type Phase =
  { kind: 'connecting'; step: StartStep } | { kind: 'down'; message: string; attempts: number; retryAt: number | null } | { kind: 'ready' };

/** What start-up is waiting for. */
export type StartStep = 'controller' | 'session';

export interface PhaseControl {
  phase: Phase;
  /** the phase now (between renders) */
  current: () => Phase;
  /** counts a connection attempt; shows `connecting` unless the down screen is up */
  connecting: () => number;
  /** the controller answered: start-up now waits for the session */
  opening: () => void;
  down: (message: string, retryAt: number | null) => void;
  ready: () => void;
}

export function usePhase(): PhaseControl {
  const [phase, setPhase, phaseRef] = useRefState<Phase>({ kind: 'connecting', step: 'controller' });
  const attempts = useRef(0);
  const current = useCallback(() => phaseRef.current, [phaseRef]);
  const connecting = useCallback(() => {
    attempts.current++;
    setPhase((p) => (p.kind === 'down' ? { ...p, retryAt: null } : { kind: 'connecting', step: 'controller' }));
    return attempts.current;
  }, [setPhase]);
  const opening = useCallback(() => setPhase((p) => (p.kind === 'down' ? p : { kind: 'connecting', step: 'session' })), [setPhase]);
  const down = useCallback(
    (message: string, retryAt: number | null) => setPhase({ kind: 'down', message, attempts: attempts.current, retryAt }),
    [setPhase],
  );
  const ready = useCallback(() => setPhase({ kind: 'ready' }), [setPhase]);
  return { phase, current, connecting, opening, down, ready };
}

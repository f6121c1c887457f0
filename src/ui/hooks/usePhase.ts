import { useCallback, useRef } from 'react';
import { useRefState } from './useRefState.js';

/** Where the TUI is: connecting to the controller, showing it down (with retries), or ready. */
export type Phase =
  { kind: 'connecting' } | { kind: 'down'; message: string; attempts: number; retryAt: number | null } | { kind: 'ready' };

export interface PhaseControl {
  phase: Phase;
  /** the phase now (between renders) */
  current: () => Phase;
  /** counts a connection attempt; shows `connecting` unless the down screen is up */
  connecting: () => number;
  down: (message: string, retryAt: number | null) => void;
  ready: () => void;
}

export function usePhase(): PhaseControl {
  const [phase, setPhase, phaseRef] = useRefState<Phase>({ kind: 'connecting' });
  const attempts = useRef(0);
  const current = useCallback(() => phaseRef.current, [phaseRef]);
  const connecting = useCallback(() => {
    attempts.current++;
    setPhase((p) => (p.kind === 'down' ? { ...p, retryAt: null } : { kind: 'connecting' }));
    return attempts.current;
  }, [setPhase]);
  const down = useCallback(
    (message: string, retryAt: number | null) => setPhase({ kind: 'down', message, attempts: attempts.current, retryAt }),
    [setPhase],
  );
  const ready = useCallback(() => setPhase({ kind: 'ready' }), [setPhase]);
  return { phase, current, connecting, down, ready };
}

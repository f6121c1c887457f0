import { useCallback, useRef } from 'react';
import { useEvent } from './useEvent.js';

export interface ExitOptions {
  /** stops what runs: the turn (denying a pending approval), retry and hint timers */
  stop: () => void;
  closeSession: () => Promise<void>;
  closeServices: () => Promise<void>;
  /** called once with the exit code before the app unmounts */
  onExit: (code: number) => void;
  unmount: () => void;
}

/** Exits once: stops everything, closes the session and the services, reports the code, unmounts. */
export function useExit(o: ExitOptions) {
  const exiting = useRef(false);
  const isExiting = useCallback(() => exiting.current, []);
  const exit = useEvent((code: number) => {
    if (exiting.current) return;
    exiting.current = true;
    o.stop();
    void (async () => {
      await o.closeSession();
      await o.closeServices().catch(() => undefined);
      o.onExit(code);
      o.unmount();
    })();
  });
  return { exit, isExiting };
}

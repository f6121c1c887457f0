import { useCallback, useEffect, useRef, useState } from 'react';

/** How long a hint stays, and how close two presses of Ctrl-C must be to exit. */
export const DOUBLE_PRESS_MS = 2000;

/** A one-line hint above the status bar that goes away by itself. */
export function useFlashHint() {
  const [hint, setHint] = useState<string | undefined>(undefined);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const flashHint = useCallback((text: string) => {
    setHint(text);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setHint(undefined), DOUBLE_PRESS_MS);
  }, []);
  const stopHint = useCallback(() => clearTimeout(timer.current), []);
  useEffect(() => stopHint, [stopHint]);
  return { hint, flashHint, stopHint };
}

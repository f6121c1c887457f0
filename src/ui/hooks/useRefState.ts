import { useCallback, useRef, useState } from 'react';

/**
 * State whose latest value is also readable synchronously: key handlers run
 * between renders (a fast typist or a paste delivers several keys before React
 * re-renders), so they must never act on a stale closure.
 */
export function useRefState<T>(initial: T | (() => T)) {
  const [value, setValue] = useState<T>(initial);
  const ref = useRef<T>(value);
  const set = useCallback((next: T | ((prev: T) => T)) => {
    const v = typeof next === 'function' ? (next as (prev: T) => T)(ref.current) : next;
    ref.current = v;
    setValue(v);
  }, []);
  return [value, set, ref] as const;
}

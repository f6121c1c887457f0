import { useCallback, useLayoutEffect, useRef } from 'react';

/**
 * A stable function that always runs the latest `fn` (the useEffectEvent pattern): handlers
 * that read fresh props and state without being dependencies themselves, so effects and
 * callbacks that use them keep exact dependency lists.
 */
export function useEvent<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  const ref = useLatest(fn);
  return useCallback((...args: A) => ref.current(...args), [ref]);
}

/** A ref that holds the value of the last render, for handlers that run between renders. */
export function useLatest<T>(value: T): { readonly current: T } {
  const ref = useRef(value);
  useLayoutEffect(() => {
    ref.current = value;
  });
  return ref;
}

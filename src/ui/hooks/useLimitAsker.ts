import { useCallback, useRef } from 'react';
import type { Key } from 'ink';
import type { LimitAsker, LimitRaiseDecision, LimitRaiseRequest } from '../../core/api.js';
import type { UiAction } from '../state.js';

/**
 * The LimitAsker the core calls when a running request reaches a limit (stable for the
 * App's lifetime), and its keys: y raises it once, a for the session, n (or Esc) answers
 * with what the run has. Aborting the turn answers n.
 */
export function useLimitAsker(dispatch: (a: UiAction) => void, onSessionRaise: (req: LimitRaiseRequest) => void) {
  const pending = useRef<{ id: string; finish: (d: LimitRaiseDecision) => void } | null>(null);

  const limitAsker = useCallback<LimitAsker>(
    (req, signal) =>
      new Promise<LimitRaiseDecision>((resolve) => {
        const onAbort = () => finish('no');
        const finish = (d: LimitRaiseDecision) => {
          if (pending.current?.id !== req.id) return;
          pending.current = null;
          signal.removeEventListener('abort', onAbort); // the turn's signal outlives this question
          dispatch({ type: 'limit_prompt_resolved', id: req.id });
          if (d === 'session') onSessionRaise(req);
          resolve(d);
        };
        pending.current = { id: req.id, finish };
        dispatch({ type: 'limit_prompt', request: req });
        if (signal.aborted) finish('no');
        else signal.addEventListener('abort', onAbort, { once: true });
      }),
    [dispatch, onSessionRaise],
  );

  const isPending = useCallback(() => pending.current !== null, []);
  const declinePending = useCallback(() => pending.current?.finish('no'), []);
  const onLimitKey = useCallback((input: string, key: Key) => {
    const p = pending.current;
    if (!p) return;
    const k = input.toLowerCase();
    if (k === 'y') p.finish('once');
    else if (k === 'a') p.finish('session');
    else if (k === 'n' || key.escape) p.finish('no');
  }, []);

  return { limitAsker, isPending, declinePending, onLimitKey };
}

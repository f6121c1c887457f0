import { useCallback, useRef } from 'react';
import type { AgentEvent } from '../../core/events.js';
import type { AgentSession } from '../../core/api.js';
import { errorMessage, errorTypeOf } from '../../errors.js';
import { StreamSanitizer } from '../../security/sanitize.js';
import type { UiAction } from '../state.js';

export interface AgentTurnOptions {
  dispatch: (a: UiAction) => void;
  /** the current session, opening one when there is none (null: could not, already reported) */
  session: () => Promise<AgentSession | null>;
  /** denies a pending approval: a turn that ends or is aborted leaves nothing waiting */
  denyPending: () => void;
  /** render flush interval for streamed text (~30 fps) */
  flushMs: number;
}

/** Runs one prompt at a time, streaming its events into the reducer batched per frame, and aborts it. */
export function useAgentTurn({ dispatch, session: currentSession, denyPending, flushMs }: AgentTurnOptions) {
  const abortRef = useRef<AbortController | null>(null);

  const runTurn = useCallback(
    async (prompt: string) => {
      const session = await currentSession();
      if (!session) return;
      const ac = new AbortController();
      abortRef.current = ac;
      dispatch({ type: 'user_prompt', prompt, at: Date.now() });
      let buf: AgentEvent[] = [];
      let timer: ReturnType<typeof setTimeout> | undefined;
      const flush = () => {
        clearTimeout(timer);
        timer = undefined;
        if (buf.length === 0) return;
        const events = buf;
        buf = [];
        dispatch({ type: 'agent_batch', events, at: Date.now() });
      };
      // Without the core's `done` there are no stats: the turn closes without a made-up stats line.
      const done = (stoppedReason: 'done' | 'aborted') => dispatch({ type: 'turn_ended', stoppedReason, at: Date.now() });
      let sawDone = false;
      try {
        const clean = new StreamSanitizer(); // an escape sequence split across deltas
        for await (const raw of session.send(prompt, { signal: ac.signal })) {
          const e = raw.type === 'content' ? { ...raw, delta: clean.push(raw.delta) } : raw;
          const rest = e.type === 'content' ? '' : clean.flush();
          if (rest) buf.push({ type: 'content', delta: rest });
          buf.push(e);
          if (e.type === 'done') sawDone = true;
          // Structure changes render at once; text streams at the frame rate.
          if (e.type === 'content' || e.type === 'context') timer ??= setTimeout(flush, flushMs);
          else flush();
        }
        flush();
        if (!sawDone) done(ac.signal.aborted ? 'aborted' : 'done');
      } catch (err) {
        flush();
        if (ac.signal.aborted) done('aborted');
        else dispatch({ type: 'turn_failed', message: errorMessage(err), errorType: errorTypeOf(err), at: Date.now() });
      } finally {
        if (abortRef.current === ac) abortRef.current = null;
        denyPending();
        dispatch({ type: 'set_tree_budget', text: session.budgetLine?.() });
      }
    },
    [currentSession, dispatch, denyPending, flushMs],
  );

  /** Aborts the running turn; false when none runs (or it is already aborting). */
  const abortTurn = useCallback((): boolean => {
    const ac = abortRef.current;
    if (!ac || ac.signal.aborted) return false;
    ac.abort();
    denyPending();
    return true;
  }, [denyPending]);

  const turnRunning = useCallback(() => abortRef.current !== null, []);

  return { runTurn, abortTurn, turnRunning };
}

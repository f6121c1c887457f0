import { useCallback, useEffect, useRef, useState } from 'react';
import type { AgentSession } from '../../core/api.js';
import type { InvocationOptions, Settings } from '../../config/schema.js';
import { errorMessage } from '../../errors.js';
import type { OpenSessionOptions } from '../slash/types.js';
import type { UiServices } from '../services.js';
import type { NoticeTone } from '../state.js';
import type { PhaseControl } from './usePhase.js';
import { useEvent } from './useEvent.js';

export interface BootOptions {
  services: UiServices;
  invocation: InvocationOptions;
  /** ms between automatic controller retries */
  retryMs: number;
  settings: () => Settings;
  phase: Pick<PhaseControl, 'connecting' | 'opening' | 'down' | 'ready'>;
  exiting: () => boolean;
  notice: (text: string, tone?: NoticeTone) => void;
  openSession: (opts?: OpenSessionOptions) => Promise<AgentSession | null>;
  openPicker: (purpose: 'project_start') => Promise<unknown[] | null>;
  closePicker: () => void;
  runTurn: (prompt: string) => Promise<void>;
}

/**
 * Start-up, once on mount and in the background (the input line takes typing meanwhile): reach
 * the controller (retrying while it is down) while the agent core loads, warn about a missing
 * API key, then resume, pick a project or open a session, and send `--prompt`.
 */
export function useBoot(o: BootOptions) {
  const retryTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  /** bumped to try again (the retry timer, `r` on the down screen) */
  const [attempt, setAttempt] = useState(0);
  const retry = useCallback(() => setAttempt((n) => n + 1), []);

  // An event, not a callback with dependencies: each attempt runs with the props of its time.
  const boot = useEvent(async (): Promise<void> => {
    const { services, invocation, retryMs, settings, phase, notice, openSession } = o;
    phase.connecting();
    clearTimeout(retryTimer.current);
    // The agent core (LangGraph, the token table, SQLite) loads while the controller answers.
    services.warmUp?.();
    const keyCheck = services.hasApiKey(settings()).catch(() => true);
    try {
      await services.checkController(settings());
    } catch (err) {
      if (o.exiting()) return;
      phase.down(errorMessage(err), Date.now() + retryMs);
      retryTimer.current = setTimeout(retry, retryMs);
      return;
    }
    if (o.exiting()) return;
    phase.opening();
    if (!(await keyCheck)) {
      notice('No LLM API key found. Run `gns3-copilot auth login` (or set GNS3_COPILOT_API_KEY / OPENAI_API_KEY), then restart.', 'warn');
    }
    const resuming = invocation.continueLatest || invocation.resumeId !== undefined;
    if (!settings().project && !resuming) {
      phase.ready();
      const items = await o.openPicker('project_start');
      if (items && items.length === 0) {
        o.closePicker();
        notice('No projects on the controller yet; starting without one (/project to pick later).', 'warn');
        await openSession();
      }
      return;
    }
    const s = await openSession({
      ...(invocation.resumeId ? { sessionId: invocation.resumeId } : {}),
      ...(invocation.continueLatest ? { continueLatest: true } : {}),
    });
    if (s && invocation.prompt) void o.runTurn(invocation.prompt);
  });

  const stopRetry = useCallback(() => clearTimeout(retryTimer.current), []);

  useEffect(() => {
    void boot();
    return stopRetry;
  }, [attempt, boot, stopRetry]);

  return { retry, stopRetry };
}

import type { InvocationOptions, Settings } from '../../config/schema.js';
import type { UiServices } from '../services.js';
import type { NoticeTone, UiAction } from '../state.js';
import { useAgentSession } from './useAgentSession.js';
import { useAgentTurn } from './useAgentTurn.js';
import { useApprover } from './useApprover.js';
import { useEvent } from './useEvent.js';
import { useLimitAsker } from './useLimitAsker.js';
import type { PhaseControl } from './usePhase.js';

export interface AgentPartsOptions {
  settings: Settings;
  invocation: InvocationOptions;
  services: UiServices;
  dispatch: (a: UiAction) => void;
  notice: (text: string, tone?: NoticeTone) => void;
  phase: PhaseControl;
  /** render flush interval for streamed events */
  flushMs: number;
}

/**
 * The agent side of the TUI, wired to each other: the approval box and the limit question the
 * session asks through, the session itself, and the turn that runs on it.
 */
export function useAgentParts({ settings, invocation, services, dispatch, notice, phase, flushMs }: AgentPartsOptions) {
  const approvals = useApprover(dispatch);
  // a raise "for this session" is in the session's limits once the core kept it: show them
  const showSessionLimits = useEvent(() => {
    setTimeout(() => {
      const s = sessions.session();
      if (s) dispatch({ type: 'set_limits', limits: { ...s.limits } });
    }, 0);
  });
  const limitAsk = useLimitAsker(dispatch, showSessionLimits);
  const sessions = useAgentSession({
    initialSettings: settings,
    invocation,
    services,
    approver: approvals.approver,
    limitAsker: limitAsk.limitAsker,
    resetAllowed: approvals.resetAllowed,
    dispatch,
    notice,
    phase,
  });
  const turn = useAgentTurn({ dispatch, session: sessions.ensureSession, denyPending: approvals.denyPending, flushMs });
  return { approvals, limitAsk, sessions, turn };
}

export type AgentParts = ReturnType<typeof useAgentParts>;

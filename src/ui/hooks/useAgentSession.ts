import { useCallback, useRef } from 'react';
import type { AgentSession, Approver, LimitAsker } from '../../core/api.js';
import type { InvocationOptions, Settings } from '../../config/schema.js';
import { errorMessage, errorTypeOf } from '../../errors.js';
import type { OpenSessionOptions } from '../slash/types.js';
import { turnsFromTranscript } from '../resume.js';
import type { UiServices } from '../services.js';
import type { NoticeTone, UiAction } from '../state.js';
import type { PhaseControl } from './usePhase.js';
import { count } from '../../core/plural.js';

export interface AgentSessionOptions {
  initialSettings: Settings;
  invocation: InvocationOptions;
  services: UiServices;
  approver: Approver;
  limitAsker?: LimitAsker;
  /** forgets "yes for this session" answers when the session changes */
  resetAllowed: () => void;
  dispatch: (a: UiAction) => void;
  notice: (text: string, tone?: NoticeTone) => void;
  phase: Pick<PhaseControl, 'down' | 'ready'>;
}

/**
 * The current agent session and the settings it runs with: opening, resuming and replacing it
 * (new session, /model, /project, a session picked from /sessions).
 */
export function useAgentSession(o: AgentSessionOptions) {
  const { invocation, services, approver, limitAsker, resetAllowed, dispatch, notice } = o;
  const { down: phaseDown, ready: phaseReady } = o.phase;
  const settingsRef = useRef<Settings>(o.initialSettings);
  const sessionRef = useRef<AgentSession | null>(null);

  const settings = useCallback(() => settingsRef.current, []);
  const updateSettings = useCallback((patch: Partial<Settings>) => {
    settingsRef.current = { ...settingsRef.current, ...patch };
  }, []);
  const session = useCallback(() => sessionRef.current, []);

  /** Shows a resumed session's project and its recent turns. */
  const showResumed = useCallback(
    async (s: AgentSession) => {
      const meta = await services.getSession(settingsRef.current, s.id).catch(() => undefined);
      if (meta) dispatch({ type: 'set_project', projectId: meta.projectId, projectName: meta.projectName });
      const transcript = await services.sessionHistory(settingsRef.current, s.id).catch(() => []);
      const { turns, omitted } = turnsFromTranscript(transcript);
      if (omitted > 0) notice(`… ${omitted} earlier turns (gns3-copilot sessions show ${s.id.slice(0, 8)})`);
      if (turns.length > 0) dispatch({ type: 'history', turns });
      notice(`Resumed session “${meta?.title ?? '(untitled)'}” (${s.id.slice(0, 8)}, ${count(meta?.messageCount ?? 0, 'message')})`);
    },
    [services, dispatch, notice],
  );

  /** Opens (or resumes) a session and makes it current. */
  const openSession = useCallback(
    async (opts: OpenSessionOptions = {}): Promise<AgentSession | null> => {
      try {
        // A resumed session keeps its own project (also when picked from /sessions): the UI's
        // status bar and /topology follow it, and the core then reopens that same project.
        const resumeMeta = opts.sessionId
          ? await services.getSession(settingsRef.current, opts.sessionId).catch(() => undefined)
          : opts.continueLatest
            ? await services.latestSession(settingsRef.current).catch(() => undefined)
            : undefined;
        const resumeProject = resumeMeta?.projectName ?? resumeMeta?.projectId;
        if (resumeProject && resumeProject !== settingsRef.current.project) updateSettings({ project: resumeProject });
        const s = await services.createSession({
          settings: settingsRef.current,
          invocation,
          approver,
          ...(limitAsker ? { limitAsker } : {}),
          ...(opts.sessionId ? { sessionId: opts.sessionId } : {}),
          ...(opts.continueLatest ? { continueLatest: true } : {}),
        });
        const old = sessionRef.current;
        sessionRef.current = s;
        if (old && old !== s) await old.close().catch(() => undefined);
        resetAllowed();
        dispatch({ type: 'session_changed', sessionId: s.id, resetTotals: true });
        dispatch({ type: 'set_mode', mode: s.mode });
        dispatch({ type: 'set_limits', limits: { ...s.limits } });
        phaseReady();
        for (const n of s.notices ?? []) notice(n, 'warn');
        if (opts.announce === 'resumed' || opts.continueLatest || opts.sessionId) await showResumed(s);
        else if (opts.announce === 'new') notice(`New session ${s.id.slice(0, 8)}`);
        return s;
      } catch (err) {
        if (errorTypeOf(err) === 'controller') {
          phaseDown(errorMessage(err), null);
        } else {
          phaseReady();
          notice(`✗ ${errorMessage(err)}`, 'error');
        }
        return null;
      }
    },
    [services, invocation, approver, limitAsker, resetAllowed, dispatch, notice, phaseDown, phaseReady, updateSettings, showResumed],
  );

  /** The current session, or a new one. */
  const ensureSession = useCallback(async () => sessionRef.current ?? (await openSession()), [openSession]);

  const switchProject = useCallback(
    async (project: string) => {
      updateSettings({ project });
      dispatch({ type: 'set_project', projectId: null, projectName: project });
      const s = await openSession();
      if (s) notice(`Project → ${project} (new session ${s.id.slice(0, 8)})`);
    },
    [updateSettings, dispatch, openSession, notice],
  );

  /** Starts the first session in the project chosen at start-up (none: without a project). */
  const startIn = useCallback(
    async (project: { id: string; name: string } | undefined) => {
      if (project) {
        updateSettings({ project: project.name });
        dispatch({ type: 'set_project', projectId: project.id, projectName: project.name });
      } else notice('No project chosen; /project picks one later.', 'warn');
      await openSession();
    },
    [updateSettings, dispatch, notice, openSession],
  );

  const closeSession = useCallback(async () => {
    await sessionRef.current?.close().catch(() => undefined);
    sessionRef.current = null;
  }, []);

  return { settings, updateSettings, session, openSession, ensureSession, switchProject, startIn, closeSession };
}

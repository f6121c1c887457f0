/**
 * The TUI root: wires the agent session (through UiServices) to the reducer
 * and routes keys. It holds no agent logic: it sends prompts, forwards
 * approvals and commands, and renders state.
 */
import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { Box, Static, useApp, useInput, useStdin, useStdout, type Key } from 'ink';
import type { AgentEvent } from '../../agent/events.js';
import type { AgentSession, ApprovalDecision, ApprovalRequest, Approver } from '../../agent/api.js';
import { LIMIT_KEYS, applyLimitsCommand, isLimitsQuery, limitsLine, limitsPatch } from '../limits-command.js';
import { MODE_SHORT_NAME, MODE_TOOLS } from '../../agent/modes.js';
import type { InvocationOptions, Settings } from '../../config/schema.js';
import { errorMessage, errorTypeOf } from '../../errors.js';
import { initialState, reduce, findToolCall, type UiState } from '../state.js';
import { InputHistory } from '../history.js';
import { completeCommand, helpText, isCommand, parseCommand } from '../commands.js';
import { editLine, emptyEditor, type EditorState } from '../editor.js';
import { approvalLines } from '../summary.js';
import { topologyMarkdown } from '../topology.js';
import { turnsFromTranscript } from '../resume.js';
import { compactNumber } from '../format.js';
import type { SessionInfo, UiServices } from '../services.js';
import { ColorProvider } from './theme.js';
import { EntryView, LiveTurn } from './Turn.js';
import { StatusBar, statusLines, statusSegments } from './StatusBar.js';
import { InputLine } from './InputLine.js';
import { ApprovalPrompt, APPROVAL_CHOICES } from './ApprovalPrompt.js';
import { Picker, filterItems, type PickerItem } from './Picker.js';
import { OutputPanel } from './OutputPanel.js';
import { ConnectingScreen, ControllerDownScreen } from './Screens.js';
import { sanitizeDeep, StreamSanitizer } from '../../security/sanitize.js';

/** Every action (agent events, notices, history) is printable text before it reaches state: Ink writes strings raw. */
const reduceSanitized = (s: UiState, a: Parameters<typeof reduce>[1]): UiState => reduce(s, sanitizeDeep(a));

export interface AppProps {
  settings: Settings;
  invocation: InvocationOptions;
  services: UiServices;
  color: boolean;
  /** called once with the exit code before the app unmounts */
  onExit: (code: number) => void;
  /** ms between automatic controller retries (tests shorten it) */
  retryMs?: number;
  /** render flush interval for streamed events (~30 fps) */
  flushMs?: number;
}

type Phase =
  | { kind: 'connecting' }
  | { kind: 'down'; message: string; attempts: number; retryAt: number | null }
  | { kind: 'ready' };

type PickerPurpose = 'project_start' | 'project_switch' | 'sessions';
interface PickerState {
  purpose: PickerPurpose;
  title: string;
  items: PickerItem[];
  query: string;
  selected: number;
  loading: boolean;
  empty: string;
}

const DOUBLE_PRESS_MS = 2000;
const CLEAR_SCREEN = '\u001b[2J\u001b[3J\u001b[H';

function useTerminalSize(): { columns: number; rows: number } {
  const { stdout } = useStdout();
  const read = () => ({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
  const [size, setSize] = useState(read);
  useEffect(() => {
    const onResize = () => setSize(read());
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [stdout]);
  return size;
}

/**
 * State whose latest value is also readable synchronously: key handlers run
 * between renders (a fast typist or a paste delivers several keys before React
 * re-renders), so they must never act on a stale closure.
 */
function useRefState<T>(initial: T | (() => T)) {
  const [value, setValue] = useState<T>(initial);
  const ref = useRef<T>(value);
  const set = useCallback((next: T | ((prev: T) => T)) => {
    const v = typeof next === 'function' ? (next as (prev: T) => T)(ref.current) : next;
    ref.current = v;
    setValue(v);
  }, []);
  return [value, set, ref] as const;
}

function relativeTime(iso: string): string {
  const ms = Date.now() - Date.parse(iso);
  if (!Number.isFinite(ms)) return '';
  if (ms < 60_000) return 'just now';
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)}m ago`;
  if (ms < 86_400_000) return `${Math.floor(ms / 3_600_000)}h ago`;
  return `${Math.floor(ms / 86_400_000)}d ago`;
}

function sessionItem(s: SessionInfo): PickerItem {
  return {
    id: s.id,
    label: `${s.pinned ? '★ ' : ''}${s.title ?? '(untitled)'}`,
    detail: [s.projectName ?? 'no project', MODE_SHORT_NAME[s.mode], relativeTime(s.updatedAt), s.id.slice(0, 8)].filter(Boolean).join(' · '),
  };
}

export function App(props: AppProps) {
  const { invocation, services, retryMs = 5000, flushMs = 33 } = props;
  const app = useApp();
  const { isRawModeSupported } = useStdin();
  const { stdout } = useStdout();
  const size = useTerminalSize();

  const settingsRef = useRef<Settings>(props.settings);
  const [state, dispatch] = useReducer(
    reduceSanitized,
    undefined,
    (): UiState =>
      initialState({
        server: props.settings.server,
        projectName: props.settings.project ?? null,
        mode: props.settings.mode,
        model: props.settings.model,
        limits: {
          max_iterations: props.settings.max_iterations,
          ...(props.settings.max_tool_calls !== undefined ? { max_tool_calls: props.settings.max_tool_calls } : {}),
          ...(props.settings.max_time !== undefined ? { max_time: props.settings.max_time } : {}),
          tool_limits: props.settings.tool_limits,
          on_limit: props.settings.on_limit,
        },
      }),
  );
  const stateRef = useRef(state);
  stateRef.current = state;

  const [phase, setPhase, phaseRef] = useRefState<Phase>({ kind: 'connecting' });
  const [editor, setEditor, editorRef] = useRefState<EditorState>(emptyEditor);
  const [candidates, setCandidates] = useState<string[]>([]);
  const [picker, setPicker, pickerRef] = useRefState<PickerState | null>(null);
  const [approvalUi, setApprovalUi, approvalUiRef] = useRefState<{ selected: number; feedback: string | null }>({ selected: 0, feedback: null });
  const [panelOffset, setPanelOffset] = useState(0);
  const [hint, setHint] = useState<string | undefined>(undefined);
  const [now, setNow] = useState(() => Date.now());

  const sessionRef = useRef<AgentSession | null>(null);
  const abortRef = useRef<AbortController | null>(null);
  const approvalRef = useRef<{ id: string; name: string; finish: (d: ApprovalDecision) => void } | null>(null);
  const allowedTools = useRef(new Set<string>());
  const history = useRef(new InputHistory());
  const lastCtrlC = useRef(0);
  const exiting = useRef(false);
  const retryTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const hintTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const bootAttempts = useRef(0);

  const notice = useCallback((text: string, tone: 'info' | 'warn' | 'error' = 'info') => dispatch({ type: 'notice', text, tone }), []);
  const flashHint = useCallback((text: string) => {
    setHint(text);
    clearTimeout(hintTimer.current);
    hintTimer.current = setTimeout(() => setHint(undefined), DOUBLE_PRESS_MS);
  }, []);

  // Spinner / elapsed / retry countdown tick, only while something moves.
  const ticking = state.live !== null || phase.kind === 'down';
  useEffect(() => {
    if (!ticking) return;
    const t = setInterval(() => setNow(Date.now()), 100);
    return () => clearInterval(t);
  }, [ticking]);

  const exit = useCallback(
    (code: number) => {
      if (exiting.current) return;
      exiting.current = true;
      abortRef.current?.abort();
      approvalRef.current?.finish({ kind: 'deny' });
      clearTimeout(retryTimer.current);
      clearTimeout(hintTimer.current);
      void (async () => {
        await sessionRef.current?.close().catch(() => undefined);
        sessionRef.current = null;
        await services.close().catch(() => undefined);
        props.onExit(code);
        app.exit();
      })();
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [app, services],
  );

  // The Approver the core calls; stable for the session's lifetime.
  const approver = useRef<Approver>((req: ApprovalRequest, signal: AbortSignal) => {
    if (allowedTools.current.has(req.name)) return Promise.resolve({ kind: 'allow_session' } as ApprovalDecision);
    return new Promise<ApprovalDecision>((resolve) => {
      const finish = (d: ApprovalDecision) => {
        if (approvalRef.current?.id !== req.id) return;
        approvalRef.current = null;
        if (d.kind === 'allow_session') allowedTools.current.add(req.name);
        dispatch({ type: 'approval_resolved', id: req.id, decision: d });
        resolve(d);
      };
      approvalRef.current = { id: req.id, name: req.name, finish };
      setApprovalUi({ selected: 0, feedback: null });
      dispatch({ type: 'approval_request', request: req });
      if (signal.aborted) finish({ kind: 'deny' });
      else signal.addEventListener('abort', () => finish({ kind: 'deny' }), { once: true });
    });
  }).current;

  /** Opens (or resumes) a session and makes it current. */
  const openSession = useCallback(
    async (opts: { sessionId?: string; continueLatest?: boolean; announce?: 'new' | 'resumed' } = {}): Promise<AgentSession | null> => {
      try {
        // A resumed session keeps its own project (also when picked from /sessions): the UI's
        // status bar and /topology follow it, and the core then reopens that same project.
        const resumeMeta = opts.sessionId
          ? await services.getSession(settingsRef.current, opts.sessionId).catch(() => undefined)
          : opts.continueLatest
            ? await services.latestSession(settingsRef.current).catch(() => undefined)
            : undefined;
        const resumeProject = resumeMeta?.projectName ?? resumeMeta?.projectId;
        if (resumeProject && resumeProject !== settingsRef.current.project) {
          settingsRef.current = { ...settingsRef.current, project: resumeProject };
        }
        const s = await services.createSession({
          settings: settingsRef.current,
          invocation,
          approver,
          ...(opts.sessionId ? { sessionId: opts.sessionId } : {}),
          ...(opts.continueLatest ? { continueLatest: true } : {}),
        });
        const old = sessionRef.current;
        sessionRef.current = s;
        if (old && old !== s) await old.close().catch(() => undefined);
        allowedTools.current.clear();
        dispatch({ type: 'session_changed', sessionId: s.id, resetTotals: true });
        dispatch({ type: 'set_mode', mode: s.mode });
        dispatch({ type: 'set_limits', limits: { ...s.limits } });
        setPhase({ kind: 'ready' });
        for (const n of s.notices ?? []) notice(n, 'warn');
        if (opts.announce === 'resumed' || opts.continueLatest || opts.sessionId) {
          const meta = await services.getSession(settingsRef.current, s.id).catch(() => undefined);
          if (meta) dispatch({ type: 'set_project', projectId: meta.projectId, projectName: meta.projectName });
          const transcript = await services.sessionHistory(settingsRef.current, s.id).catch(() => []);
          const { turns, omitted } = turnsFromTranscript(transcript);
          if (omitted > 0) notice(`… ${omitted} earlier turns (gns3-copilot sessions show ${s.id.slice(0, 8)})`);
          if (turns.length > 0) dispatch({ type: 'history', turns });
          notice(`Resumed session “${meta?.title ?? '(untitled)'}” (${s.id.slice(0, 8)}, ${meta?.messageCount ?? 0} messages)`);
        } else if (opts.announce === 'new') {
          notice(`New session ${s.id.slice(0, 8)}`);
        }
        return s;
      } catch (err) {
        const type = errorTypeOf(err);
        if (type === 'controller') {
          setPhase({ kind: 'down', message: errorMessage(err), attempts: bootAttempts.current, retryAt: null });
        } else {
          setPhase({ kind: 'ready' });
          notice(`✗ ${errorMessage(err)}`, 'error');
        }
        return null;
      }
    },
    [services, invocation, approver, notice],
  );

  const openPicker = useCallback(
    async (purpose: PickerPurpose, query = '') => {
      const title = purpose === 'sessions' ? 'Sessions' : 'GNS3 projects';
      const empty = purpose === 'sessions' ? 'no sessions yet' : 'no projects on this controller';
      setPicker({ purpose, title, items: [], query, selected: 0, loading: true, empty });
      try {
        const items =
          purpose === 'sessions'
            ? (await services.listSessions(settingsRef.current)).map(sessionItem)
            : (await services.listProjects(settingsRef.current)).map((p) => ({ id: p.id, label: p.name, detail: p.status ?? '' }));
        setPicker((p) => (p && p.purpose === purpose ? { ...p, items, loading: false } : p));
        return items;
      } catch (err) {
        setPicker(null);
        notice(`✗ ${errorMessage(err)}`, 'error');
        return null;
      }
    },
    [services, notice],
  );

  const boot = useCallback(async () => {
    bootAttempts.current++;
    clearTimeout(retryTimer.current);
    setPhase((p) => (p.kind === 'down' ? { ...p, retryAt: null } : { kind: 'connecting' }));
    try {
      await services.checkController(settingsRef.current);
    } catch (err) {
      if (exiting.current) return;
      setPhase({ kind: 'down', message: errorMessage(err), attempts: bootAttempts.current, retryAt: Date.now() + retryMs });
      retryTimer.current = setTimeout(() => void boot(), retryMs);
      return;
    }
    if (exiting.current) return;
    if (!(await services.hasApiKey(settingsRef.current).catch(() => true))) {
      notice('No LLM API key found. Run `gns3-copilot auth login` (or set GNS3_COPILOT_API_KEY / OPENAI_API_KEY), then restart.', 'warn');
    }
    const resuming = invocation.continueLatest || invocation.resumeId !== undefined;
    if (!settingsRef.current.project && !resuming) {
      setPhase({ kind: 'ready' });
      const items = await openPicker('project_start');
      if (items && items.length === 0) {
        setPicker(null);
        notice('No projects on the controller yet; starting without one (/project to pick later).', 'warn');
        await openSession();
      }
      return;
    }
    const s = await openSession({
      ...(invocation.resumeId ? { sessionId: invocation.resumeId } : {}),
      ...(invocation.continueLatest ? { continueLatest: true } : {}),
    });
    if (s && invocation.prompt) void runTurn(invocation.prompt);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [services, invocation, retryMs, openSession, openPicker, notice]);

  useEffect(() => {
    void boot();
    return () => {
      clearTimeout(retryTimer.current);
      clearTimeout(hintTimer.current);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  /** Sends one prompt and streams its events into the reducer, batched per frame. */
  const runTurn = useCallback(
    async (prompt: string) => {
      const session = sessionRef.current ?? (await openSession());
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
        if (!sawDone) {
          dispatch({
            type: 'agent',
            event: { type: 'done', stopped_reason: ac.signal.aborted ? 'aborted' : 'done', stats: zeroStats() },
            at: Date.now(),
          });
        }
      } catch (err) {
        flush();
        if (ac.signal.aborted) {
          dispatch({ type: 'agent', event: { type: 'done', stopped_reason: 'aborted', stats: zeroStats() }, at: Date.now() });
        } else {
          dispatch({ type: 'turn_failed', message: errorMessage(err), errorType: errorTypeOf(err), at: Date.now() });
        }
      } finally {
        if (abortRef.current === ac) abortRef.current = null;
        approvalRef.current?.finish({ kind: 'deny' });
        dispatch({ type: 'set_tree_budget', text: session.budgetLine?.() });
      }
    },
    [openSession, flushMs],
  );

  const abortTurn = useCallback((): boolean => {
    const ac = abortRef.current;
    if (!ac || ac.signal.aborted) return false;
    ac.abort();
    approvalRef.current?.finish({ kind: 'deny' });
    return true;
  }, []);

  const busy = state.live !== null;

  const runCommand = useCallback(
    async (line: string) => {
      const cmd = parseCommand(line);
      const session = sessionRef.current;
      const s = stateRef.current;
      const needsIdle = (what: string) => {
        if (abortRef.current) {
          notice(`${what} waits for the running turn (Esc aborts it)`, 'warn');
          return true;
        }
        return false;
      };
      switch (cmd.kind) {
        case 'help':
          notice(helpText());
          return;
        case 'quit':
          exit(0);
          return;
        case 'clear':
          stdout.write(CLEAR_SCREEN);
          dispatch({ type: 'clear' });
          return;
        case 'mode': {
          if (cmd.invalid) return notice(`Unknown mode "${cmd.invalid}": use teaching, lab or inject`, 'error');
          if (!cmd.mode) {
            return notice(`Mode: ${MODE_SHORT_NAME[s.mode]} (${s.mode}). Tools: ${MODE_TOOLS[s.mode].join(', ')}`);
          }
          try {
            session?.setMode(cmd.mode);
          } catch (err) {
            return notice(`✗ ${errorMessage(err)}`, 'error');
          }
          dispatch({ type: 'set_mode', mode: cmd.mode });
          notice(`Mode → ${MODE_SHORT_NAME[cmd.mode]} (${cmd.mode})${abortRef.current ? ' from the next request' : ''}`);
          return;
        }
        case 'limits': {
          if (cmd.errors.length) return notice(`/limits: ${cmd.errors.join('; ')}`, 'error');
          if (isLimitsQuery(cmd)) return notice(`Limits per request: ${limitsLine(s.limits)}\nSet with /limits key=value (${LIMIT_KEYS}; off clears)`);
          const next = applyLimitsCommand(session?.limits ?? s.limits, cmd);
          session?.setLimits(limitsPatch(next));
          dispatch({ type: 'set_limits', limits: next });
          notice(`Limits → ${limitsLine(next)}`);
          return;
        }
        case 'model': {
          if (!cmd.model) return notice(`Model: ${s.model} (provider ${settingsRef.current.provider})`);
          if (needsIdle('/model')) return;
          settingsRef.current = { ...settingsRef.current, model: cmd.model };
          dispatch({ type: 'set_model', model: cmd.model });
          if (session) await openSession({ sessionId: session.id });
          notice(`Model → ${cmd.model}`);
          return;
        }
        case 'project': {
          if (needsIdle('/project')) return;
          if (!cmd.project) {
            await openPicker('project_switch');
            return;
          }
          await switchProject(cmd.project);
          return;
        }
        case 'sessions': {
          if (needsIdle('/sessions')) return;
          await openPicker('sessions', cmd.search ?? '');
          return;
        }
        case 'new': {
          if (needsIdle('/new')) return;
          await openSession({ announce: 'new' });
          return;
        }
        case 'rename': {
          if (!cmd.title) return notice('Usage: /rename <title>', 'error');
          const id = s.sessionId ?? session?.id;
          if (!id) return notice('No session yet', 'warn');
          const ok = await services.renameSession(settingsRef.current, id, cmd.title).catch((e: unknown) => {
            notice(`✗ ${errorMessage(e)}`, 'error');
            return null;
          });
          if (ok) notice(`Renamed to “${cmd.title.slice(0, 40)}”`);
          else if (ok === false) notice('Session not saved yet: send a message first', 'warn');
          return;
        }
        case 'delete': {
          const current = s.sessionId ?? session?.id;
          if (!cmd.target) return notice('Usage: /delete <id> (see /sessions) or /delete current', 'error');
          const meta = cmd.target === 'current' ? (current ? { id: current } : undefined) : await services.getSession(settingsRef.current, cmd.target).catch(() => undefined);
          if (!meta) return notice(cmd.target === 'current' ? 'No session yet' : `No session "${cmd.target}"`, 'error');
          const isCurrent = meta.id === current;
          if (isCurrent && needsIdle('/delete')) return;
          try {
            const ok = await services.deleteSession(settingsRef.current, meta.id);
            notice(ok ? `Deleted session ${meta.id.slice(0, 8)}` : 'Session not saved yet: nothing to delete', ok ? 'info' : 'warn');
          } catch (e) {
            return notice(`✗ ${errorMessage(e)}`, 'error');
          }
          if (isCurrent) await openSession({ announce: 'new' });
          return;
        }
        case 'pin': {
          const id = s.sessionId ?? session?.id;
          if (!id) return notice('No session yet', 'warn');
          try {
            const meta = await services.getSession(settingsRef.current, id);
            if (!meta) return notice('Session not saved yet: send a message first', 'warn');
            const wasPinned = meta.pinned;
            await services.setPinned(settingsRef.current, id, !wasPinned);
            notice(wasPinned ? 'Unpinned this session' : 'Pinned this session');
          } catch (e) {
            notice(`✗ ${errorMessage(e)}`, 'error');
          }
          return;
        }
        case 'topology': {
          const project = settingsRef.current.project ?? s.projectId ?? s.projectName;
          if (!project) return notice('No project selected (/project)', 'warn');
          try {
            const topo = await services.topology(settingsRef.current, project);
            dispatch({ type: 'block', title: `Topology — ${topo.project_name}`, body: topologyMarkdown(topo) });
          } catch (e) {
            notice(`✗ ${errorMessage(e)}`, 'error');
          }
          return;
        }
        case 'tree': {
          const lines = sessionRef.current?.treeText?.();
          if (!lines) return notice('No task tree yet: send a message first');
          dispatch({ type: 'block', title: 'Task tree', body: lines.join('\n') });
          return;
        }
        case 'context': {
          const c = s.context;
          if (!c) return notice('No context measured yet: send a message first');
          notice(
            `Context: ~${compactNumber(c.tokens)} tokens + ${compactNumber(c.tools_tokens)} tools = ${compactNumber(c.tokens + c.tools_tokens)} / ${compactNumber(c.limit)} (${Math.round(c.percent)}%)` +
              (c.trimmed ? ` · ${c.trimmed} old messages trimmed` : '') +
              ` · strategy ${settingsRef.current.context_strategy}`,
          );
          return;
        }
        case 'unknown':
          notice(`Unknown command /${cmd.name} (/help lists commands)`, 'error');
          return;
      }
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [services, openSession, openPicker, exit, notice, stdout],
  );

  const switchProject = async (project: string) => {
    settingsRef.current = { ...settingsRef.current, project };
    dispatch({ type: 'set_project', projectId: null, projectName: project });
    const s = await openSession();
    if (s) notice(`Project → ${project} (new session ${s.id.slice(0, 8)})`);
  };

  const submit = (value: string) => {
    const line = value.trim();
    if (phaseRef.current.kind !== 'ready') {
      // Typed ahead while connecting: keep the line until the session is there.
      flashHint('Still connecting… (Enter again when the prompt is ready)');
      return;
    }
    setEditor(emptyEditor);
    setCandidates([]);
    if (!line) return;
    history.current.push(line);
    if (isCommand(line)) {
      void runCommand(line);
      return;
    }
    if (abortRef.current) {
      notice('A turn is running: wait, or Esc to abort it', 'warn');
      return;
    }
    void runTurn(line);
  };

  const choosePicker = async (p: PickerState, item: PickerItem | undefined) => {
    setPicker(null);
    if (p.purpose === 'sessions') {
      if (item) await openSession({ sessionId: item.id, announce: 'resumed' });
      return;
    }
    if (p.purpose === 'project_start') {
      if (item) {
        settingsRef.current = { ...settingsRef.current, project: item.label };
        dispatch({ type: 'set_project', projectId: item.id, projectName: item.label });
      } else notice('No project chosen; /project picks one later.', 'warn');
      await openSession();
      return;
    }
    if (item) await switchProject(item.label);
  };

  const onPickerKey = (input: string, key: Key, p: PickerState) => {
    const visible = filterItems(p.items, p.query);
    if (key.escape) return void choosePicker(p, undefined);
    if (key.return) return void choosePicker(p, visible[p.selected]);
    if (key.upArrow) return setPicker({ ...p, selected: Math.max(0, p.selected - 1) });
    if (key.downArrow) return setPicker({ ...p, selected: Math.min(Math.max(0, visible.length - 1), p.selected + 1) });
    if (key.backspace || key.delete) return setPicker({ ...p, query: [...p.query].slice(0, -1).join(''), selected: 0 });
    if (input && !key.ctrl && !key.meta && !key.tab) setPicker({ ...p, query: p.query + input.replace(/[\r\n]/g, ''), selected: 0 });
  };

  const onApprovalKey = (input: string, key: Key) => {
    const pending = approvalRef.current;
    if (!pending) return;
    const approvalUi = approvalUiRef.current;
    if (approvalUi.feedback !== null) {
      if (key.escape) return setApprovalUi({ ...approvalUi, feedback: null });
      if (key.return) {
        const fb = approvalUi.feedback.trim();
        setApprovalUi({ selected: 0, feedback: null });
        return pending.finish(fb ? { kind: 'deny_with_feedback', feedback: fb } : { kind: 'deny' });
      }
      if (key.backspace || key.delete) return setApprovalUi({ ...approvalUi, feedback: [...approvalUi.feedback].slice(0, -1).join('') });
      if (input && !key.ctrl && !key.meta) setApprovalUi({ ...approvalUi, feedback: approvalUi.feedback + input.replace(/[\r\n]/g, ' ') });
      return;
    }
    const choose = (i: number) => {
      const c = APPROVAL_CHOICES[i]!;
      if (c.kind === 'deny_with_feedback') return setApprovalUi({ selected: i, feedback: '' });
      pending.finish({ kind: c.kind });
    };
    if (key.upArrow) return setApprovalUi({ ...approvalUi, selected: Math.max(0, approvalUi.selected - 1) });
    if (key.downArrow) return setApprovalUi({ ...approvalUi, selected: Math.min(APPROVAL_CHOICES.length - 1, approvalUi.selected + 1) });
    if (key.return) return choose(approvalUi.selected);
    const byNumber = Number(input) - 1;
    if (byNumber >= 0 && byNumber < APPROVAL_CHOICES.length) return choose(byNumber);
    const byKey = APPROVAL_CHOICES.findIndex((c) => c.key === input.toLowerCase());
    if (byKey >= 0) choose(byKey);
  };

  useInput(
    (input, key) => {
      if (exiting.current) return;
      if (key.ctrl && input === 'c') {
        const t = Date.now();
        if (t - lastCtrlC.current < DOUBLE_PRESS_MS) return exit(130);
        lastCtrlC.current = t;
        const aborted = abortTurn();
        flashHint(aborted ? 'Aborted. Press Ctrl-C again to exit.' : 'Press Ctrl-C again to exit.');
        return;
      }
      if (key.ctrl && input === 'd') return exit(0);
      const phase = phaseRef.current;
      const picker = pickerRef.current;
      const editor = editorRef.current;
      const state = stateRef.current;
      if (phase.kind === 'down') {
        if (input === 'r') void boot();
        if (input === 'q' || key.escape) exit(3);
        return;
      }
      if (approvalRef.current) {
        if (key.escape && approvalUiRef.current.feedback === null) {
          abortTurn();
          return;
        }
        return onApprovalKey(input, key);
      }
      if (picker) return onPickerKey(input, key, picker);
      if (key.escape) {
        if (abortTurn()) return flashHint('Aborted.');
        if (state.expandedToolId) return dispatch({ type: 'toggle_output' });
        setEditor(emptyEditor);
        return;
      }
      if (key.ctrl && input === 'o') {
        setPanelOffset(0);
        return dispatch({ type: 'toggle_output' });
      }
      if (key.pageUp || key.pageDown) {
        if (state.expandedToolId) setPanelOffset((o) => Math.max(0, o + (key.pageDown ? 10 : -10)));
        return;
      }
      const r = editLine(editor, input, key);
      switch (r.kind) {
        case 'edit':
          setEditor(r.state);
          setCandidates([]);
          return;
        case 'submit':
          return submit(r.value);
        case 'history': {
          const v = r.direction === 'prev' ? history.current.prev(editor.value) : history.current.next();
          setEditor({ value: v, cursor: [...v].length });
          return;
        }
        case 'complete': {
          const c = completeCommand(editor.value);
          setEditor({ value: c.line, cursor: [...c.line].length });
          setCandidates(c.candidates);
          return;
        }
        case 'none':
          return;
      }
    },
    { isActive: isRawModeSupported },
  );

  // ---- layout ----
  const width = Math.max(20, size.columns);
  const statusH = statusLines(statusSegments(state), width - 1).length + (hint ? 1 : 0);
  const screen = Math.max(8, size.rows);
  let below = statusH + 1 + (candidates.length > 1 ? 1 : 0); // input line + status
  const expanded = state.expandedToolId ? findToolCall(state, state.expandedToolId) : undefined;
  const panelRows = expanded ? Math.max(3, Math.floor((screen - statusH) / 2)) : 0;
  let approvalMax = 0;
  if (state.approval) {
    const lines = approvalLines(state.approval.name, state.approval.args).reduce((n, g) => n + 1 + g.lines.length, 0);
    approvalMax = Math.min(screen - statusH - 2, lines + 3 + APPROVAL_CHOICES.length);
    below = statusH + approvalMax;
  }
  const pickerRows = picker ? Math.max(4, screen - statusH - 2) : 0;
  // One spare row: the cursor line Ink leaves below the frame.
  const liveRowsMax = Math.max(2, screen - below - panelRows - pickerRows - 1);

  const color = props.color;
  return (
    <ColorProvider color={color}>
      <Static key={state.epoch} items={state.entries}>
        {(e) => <EntryView key={e.key} entry={e} width={width} />}
      </Static>
      {phase.kind === 'connecting' ? <ConnectingScreen server={settingsRef.current.server} /> : null}
      {phase.kind === 'down' ? (
        <ControllerDownScreen
          server={settingsRef.current.server}
          message={phase.message}
          attempts={phase.attempts}
          retryInSec={phase.retryAt === null ? null : Math.max(0, Math.ceil((phase.retryAt - now) / 1000))}
        />
      ) : null}
      {phase.kind === 'ready' ? (
        <Box flexDirection="column">
          {state.live ? <LiveTurn turn={state.live} width={width} maxRows={liveRowsMax} now={now} /> : null}
          {expanded ? <OutputPanel call={expanded} width={width} maxRows={panelRows} offset={panelOffset} /> : null}
          {picker ? (
            <Picker
              title={picker.title}
              items={filterItems(picker.items, picker.query)}
              query={picker.query}
              selected={picker.selected}
              maxRows={pickerRows}
              width={width}
              empty={picker.empty}
              loading={picker.loading}
            />
          ) : state.approval ? (
            <ApprovalPrompt request={state.approval} selected={approvalUi.selected} feedback={approvalUi.feedback} maxLines={approvalMax} />
          ) : (
            <InputLine
              value={editor.value}
              cursor={editor.cursor}
              busy={busy}
              placeholder={busy ? 'working… (Esc aborts)' : 'Ask about your lab, or /help'}
              candidates={candidates}
            />
          )}
          <StatusBar state={state} width={width} hint={hint ?? (isRawModeSupported ? undefined : 'stdin is not a terminal: input disabled')} />
        </Box>
      ) : null}
    </ColorProvider>
  );
}

function zeroStats() {
  return { iterations: 0, llm_calls: 0, tool_calls: 0, input_tokens: 0, output_tokens: 0, duration_ms: 0 };
}

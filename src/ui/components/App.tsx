/**
 * The TUI root: layout and wiring. The hooks (src/ui/hooks) hold the parts: the agent
 * session, the running turn, approvals, the picker, start-up, the input line and key routing;
 * slash commands are objects in src/ui/slash. It holds no agent logic: it sends prompts,
 * forwards approvals and commands, and renders state.
 */
import { useCallback, useEffect, useReducer, useState } from 'react';
import { Box, Static, useApp, useStdin, useStdout } from 'ink';
import type { InvocationOptions, Settings } from '../../config/schema.js';
import { initialState, reduce, type NoticeTone, type UiState } from '../state.js';
import { COMMANDS, completeCommand, isCommand, type SlashCommand } from '../slash/index.js';
import type { PickerPurpose } from '../picker.js';
import type { PickerItem } from './Picker.js';
import { frameLayout } from '../layout.js';
import type { UiServices } from '../services.js';
import type { EarlyInput } from '../first-frame.js';
import { ColorProvider } from './theme.js';
import { EntryView, LiveTurn } from './Turn.js';
import { StatusBar } from './StatusBar.js';
import { InputLine } from './InputLine.js';
import { ApprovalPrompt } from './ApprovalPrompt.js';
import { Picker, filterItems } from './Picker.js';
import { OutputPanel } from './OutputPanel.js';
import { ConnectingScreen, ControllerDownScreen } from './Screens.js';
import { sanitizeDeep } from '../../security/sanitize.js';
import { useTerminalSize } from '../hooks/useTerminalSize.js';
import { useRefState } from '../hooks/useRefState.js';
import { useReprintOnResize } from '../hooks/useReprintOnResize.js';
import { useEvent, useLatest } from '../hooks/useEvent.js';
import { useNow } from '../hooks/useNow.js';
import { useFlashHint } from '../hooks/useFlashHint.js';
import { usePhase } from '../hooks/usePhase.js';
import { useApprover } from '../hooks/useApprover.js';
import { useLimitAsker } from '../hooks/useLimitAsker.js';
import { LimitPrompt } from './LimitPrompt.js';
import { useAgentSession } from '../hooks/useAgentSession.js';
import { useAgentTurn } from '../hooks/useAgentTurn.js';
import { usePicker } from '../hooks/usePicker.js';
import { useRewind } from '../hooks/useRewind.js';
import { useBoot } from '../hooks/useBoot.js';
import { useExit } from '../hooks/useExit.js';
import { useLineEditor } from '../hooks/useLineEditor.js';
import { useSlashCommands } from '../hooks/useSlashCommands.js';
import { useKeys } from '../hooks/useKeys.js';
import { useMap, useMapPicture } from '../hooks/useMap.js';
import { MapPanel, mapLegendRows } from './MapPanel.js';
import { markedLinks } from '../map/marks.js';

/** Every action (agent events, notices, history) is printable text before it reaches state: Ink writes strings raw. */
const reduceSanitized = (s: UiState, a: Parameters<typeof reduce>[1]): UiState => reduce(s, sanitizeDeep(a));

const CLEAR_SCREEN = '\u001b[2J\u001b[3J\u001b[H';

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
  /** the slash commands (default: all of src/ui/slash) */
  commands?: readonly SlashCommand[];
  /** keys typed on the first frame, before Ink was up (src/ui/first-frame.ts) */
  early?: EarlyInput;
}

function startState(settings: Settings): UiState {
  return initialState({
    server: settings.server,
    projectName: settings.project ?? null,
    mode: settings.mode,
    model: settings.model,
    limits: {
      max_iterations: settings.max_iterations,
      ...(settings.max_tool_calls !== undefined ? { max_tool_calls: settings.max_tool_calls } : {}),
      ...(settings.max_time !== undefined ? { max_time: settings.max_time } : {}),
      ...(settings.max_cost !== undefined ? { max_cost: settings.max_cost } : {}),
      tool_limits: settings.tool_limits,
      on_limit: settings.on_limit,
    },
  });
}

export function App(props: AppProps) {
  const { invocation, services, retryMs = 5000, flushMs = 33, commands = COMMANDS } = props;
  const app = useApp();
  const { isRawModeSupported } = useStdin();
  const { stdout } = useStdout();
  const size = useTerminalSize();

  const [state, dispatch] = useReducer(reduceSanitized, props.settings, startState);
  const stateRef = useLatest(state);
  const [panelOffset, setPanelOffset] = useState(0);
  const { hint, flashHint, stopHint } = useFlashHint();
  const notice = useCallback((text: string, tone: NoticeTone = 'info') => dispatch({ type: 'notice', text, tone }), []);

  const phase = usePhase();
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
    initialSettings: props.settings,
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
  const rewind = useRewind({
    services,
    settings: sessions.settings,
    session: sessions.session,
    approver: approvals.approver,
    notice,
    dispatch,
  });
  const choose = useEvent(async (purpose: PickerPurpose, item: PickerItem | undefined) => {
    if (purpose === 'sessions') return item ? sessions.openSession({ sessionId: item.id, announce: 'resumed' }) : undefined;
    if (purpose === 'rewind') return item ? rewind.rewindTo(Number(item.id)) : undefined;
    if (purpose === 'project_start') return sessions.startIn(item && { id: item.id, name: item.label });
    if (item) await sessions.switchProject(item.label);
  });
  const pickers = usePicker({
    services,
    settings: sessions.settings,
    sessionId: () => sessions.session()?.id,
    notice,
    onChoose: choose,
  });
  const { exit, isExiting } = useExit({
    // Runs only on exit, by when `boot` (declared below: it needs isExiting) exists.
    stop: () => {
      turn.abortTurn();
      approvals.denyPending();
      limitAsk.declinePending();
      boot.stopRetry();
      stopHint();
    },
    closeSession: sessions.closeSession,
    closeServices: () => services.close(),
    onExit: props.onExit,
    unmount: app.exit,
  });
  const boot = useBoot({
    services,
    invocation,
    retryMs,
    settings: sessions.settings,
    phase,
    exiting: isExiting,
    notice,
    openSession: sessions.openSession,
    openPicker: pickers.openPicker,
    closePicker: pickers.closePicker,
    runTurn: turn.runTurn,
  });
  const maps = useMap({ session: sessions.session, notice });
  const runCommand = useSlashCommands({
    commands,
    state: () => stateRef.current,
    session: sessions.session,
    services,
    settings: sessions.settings,
    updateSettings: sessions.updateSettings,
    dispatch,
    notice,
    turnRunning: turn.turnRunning,
    openSession: sessions.openSession,
    openPicker: pickers.openPicker,
    openMap: maps.openMap,
    switchProject: sessions.switchProject,
    clearScreen: () => stdout.write(CLEAR_SCREEN),
    exit,
  });
  // A prompt entered while start-up still runs: sent once the session is open.
  const [queued, setQueued, queuedRef] = useRefState<string | undefined>(props.early?.entered);
  const submit = useEvent((line: string): boolean => {
    if (!line) return true;
    if (phase.current().kind !== 'ready') {
      setQueued(line);
      return true;
    }
    if (isCommand(line)) void runCommand(line);
    else if (turn.turnRunning()) notice('A turn is running: wait, or Esc to abort it', 'warn');
    else if (rewind.rewindRunning()) notice('A rewind is running: wait, or Esc to abort it', 'warn');
    else void turn.runTurn(line);
    return true;
  });
  useReprintOnResize(
    size.columns,
    useCallback(() => {
      stdout.write(CLEAR_SCREEN);
      dispatch({ type: 'reprint' });
    }, [stdout]),
  );
  const sendQueued = useEvent(() => {
    const line = queuedRef.current;
    if (line === undefined || phase.current().kind !== 'ready' || pickers.pickerOpen() || !sessions.session()) return;
    setQueued(undefined);
    submit(line);
  });
  // Runs on every phase change: openSession sets `ready` again once the session exists.
  useEffect(() => sendQueued(), [phase.phase, pickers.picker, sendQueued]);
  const complete = useCallback((line: string) => completeCommand(commands, line), [commands]);
  const input = useLineEditor({ complete, onSubmit: submit, initial: props.early?.typed });
  useKeys({
    enabled: isRawModeSupported,
    exiting: isExiting,
    exit,
    abortTurn: () => turn.abortTurn() || rewind.abortRewind(),
    flashHint,
    phase: phase.current,
    retry: boot.retry,
    limitPending: limitAsk.isPending,
    onLimitKey: limitAsk.onLimitKey,
    approvalPending: approvals.isPending,
    typingFeedback: approvals.typingFeedback,
    onApprovalKey: approvals.onApprovalKey,
    pickerOpen: pickers.pickerOpen,
    onPickerKey: pickers.onPickerKey,
    mapOpen: maps.mapOpen,
    onMapKey: (i, k) => maps.onMapKey(i, k, picture, mapRoom),
    outputShown: () => stateRef.current.expandedToolId !== null,
    dispatch,
    setPanelOffset,
    clearLine: input.clearLine,
    onEditKey: input.onEditKey,
  });

  // Spinner / elapsed / retry countdown tick, only while something moves.
  const now = useNow(state.live !== null || phase.phase.kind === 'down');
  const { picker } = pickers;
  const busy = state.live !== null;
  const layout = frameLayout(state, size, {
    hint: hint !== undefined,
    candidates: input.candidates.length,
    picker: picker !== null,
    map: maps.map !== null,
  });
  const { width } = layout;
  // the drawing gets the map's rows less its header and legend, one column spare (a full line would wrap)
  const mapRoom = {
    width: width - 1,
    rows: Math.max(2, layout.mapRows - 1 - mapLegendRows(maps.map ? markedLinks(maps.map.topology) : 0)),
  };
  const picture = useMapPicture(maps.map?.topology, maps.render, props.color, mapRoom);
  const current = phase.phase;
  return (
    <ColorProvider color={props.color}>
      <Static key={state.epoch} items={state.entries}>
        {(e) => <EntryView key={e.key} entry={e} width={width} />}
      </Static>
      {current.kind === 'connecting' ? <ConnectingScreen server={state.server} step={current.step} queued={queued} /> : null}
      {current.kind === 'down' ? (
        <ControllerDownScreen
          server={state.server}
          message={current.message}
          attempts={current.attempts}
          retryInSec={current.retryAt === null ? null : Math.max(0, Math.ceil((current.retryAt - now) / 1000))}
        />
      ) : null}
      {current.kind !== 'down' ? (
        <Box flexDirection="column">
          {state.live ? <LiveTurn turn={state.live} width={width} maxRows={layout.liveRowsMax} now={now} /> : null}
          {layout.expanded ? <OutputPanel call={layout.expanded} width={width} maxRows={layout.panelRows} offset={panelOffset} /> : null}
          {picker ? (
            <Picker
              title={picker.title}
              items={filterItems(picker.items, picker.query)}
              query={picker.query}
              selected={picker.selected}
              maxRows={layout.pickerRows}
              width={width}
              empty={picker.empty}
              loading={picker.loading}
            />
          ) : maps.map && picture ? (
            <MapPanel
              picture={picture}
              x={maps.map.x}
              y={maps.map.y}
              width={mapRoom.width}
              rows={mapRoom.rows}
              live={maps.map.live}
              reason={maps.map.reason}
            />
          ) : state.limitPrompt ? (
            <LimitPrompt request={state.limitPrompt} />
          ) : state.approval ? (
            <ApprovalPrompt
              request={state.approval}
              selected={approvals.approvalUi.selected}
              feedback={approvals.approvalUi.feedback}
              maxLines={layout.approvalMax}
            />
          ) : (
            <InputLine
              value={input.editor.value}
              cursor={input.editor.cursor}
              busy={busy}
              placeholder={busy ? 'working… (Esc aborts)' : 'Ask about your lab, or /help'}
              candidates={input.candidates}
            />
          )}
          <StatusBar
            state={state}
            width={width}
            hint={hint ?? (isRawModeSupported ? undefined : 'stdin is not a terminal: input disabled')}
          />
        </Box>
      ) : null}
    </ColorProvider>
  );
}

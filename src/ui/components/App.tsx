/**
 * The TUI root: wiring. The hooks (src/ui/hooks) hold the parts: the agent side (session, turn,
 * approvals, limit questions), the lab side (rewind, checkpoint restore, the picker), start-up and
 * exit, the input line and key routing; slash commands are objects in src/ui/slash; Frame draws.
 * It holds no agent logic: it sends prompts, forwards approvals and commands, and renders state.
 */
import { useCallback, useReducer, useState } from 'react';
import { useApp, useStdin, useStdout, type Key } from 'ink';
import type { InvocationOptions, Settings } from '../../config/schema.js';
import { initialState, reduce, type NoticeTone, type UiState } from '../state.js';
import { COMMANDS, completeCommand, type SlashCommand } from '../slash/index.js';
import { frameLayout } from '../layout.js';
import type { UiServices } from '../services.js';
import type { EarlyInput } from '../first-frame.js';
import { sanitizeDeep } from '../../security/sanitize.js';
import { useTerminalSize } from '../hooks/useTerminalSize.js';
import { useScreenReprint } from '../hooks/useReprintOnResize.js';
import { useLatest } from '../hooks/useEvent.js';
import { useNow } from '../hooks/useNow.js';
import { useFlashHint } from '../hooks/useFlashHint.js';
import { usePhase, type PhaseControl } from '../hooks/usePhase.js';
import { useAgentParts, type AgentParts } from '../hooks/useAgentParts.js';
import { useLabParts, type LabParts } from '../hooks/useLabParts.js';
import { useLifecycle, type Lifecycle } from '../hooks/useLifecycle.js';
import { usePromptLine } from '../hooks/usePromptLine.js';
import { useLineEditor } from '../hooks/useLineEditor.js';
import { useSlashCommands } from '../hooks/useSlashCommands.js';
import { useKeys } from '../hooks/useKeys.js';
import { useMap, useMapView, type MapView } from '../hooks/useMap.js';
import { useRegressionPrompt } from '../hooks/useRegressionPrompt.js';
import { Frame } from './Frame.js';

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

/** What the slash commands reach of the agent and lab parts. */
function slashParts({ sessions, turn }: AgentParts, { pickers, labCheckpoint }: LabParts) {
  return {
    session: sessions.session,
    settings: sessions.settings,
    updateSettings: sessions.updateSettings,
    turnRunning: turn.turnRunning,
    openSession: sessions.openSession,
    openPicker: pickers.openPicker,
    restoreCheckpoint: labCheckpoint.restoreCheckpoint,
    switchProject: sessions.switchProject,
  };
}

/** The parts keys reach: the agent, the lab, start-up and exit, the map. */
interface KeyedParts {
  agent: AgentParts;
  lab: LabParts;
  life: Lifecycle;
  phase: PhaseControl;
  maps: ReturnType<typeof useMap>;
  mapView: MapView;
  regression: ReturnType<typeof useRegressionPrompt>;
}

/** The keys' routes into the parts: Esc aborts whichever of turn, rewind or restore runs. */
function keyParts({
  agent: { turn, limitAsk, approvals },
  lab: { rewind, labCheckpoint, pickers },
  life,
  phase,
  maps,
  mapView,
  regression,
}: KeyedParts) {
  return {
    exiting: life.isExiting,
    exit: life.exit,
    abortTurn: () => turn.abortTurn() || rewind.abortRewind() || labCheckpoint.abortRestore(),
    phase: phase.current,
    retry: life.boot.retry,
    limitPending: limitAsk.isPending,
    onLimitKey: limitAsk.onLimitKey,
    regressionPending: regression.isPending,
    onRegressionKey: regression.onKey,
    approvalPending: approvals.isPending,
    typingFeedback: approvals.typingFeedback,
    onApprovalKey: approvals.onApprovalKey,
    pickerOpen: pickers.pickerOpen,
    onPickerKey: pickers.onPickerKey,
    mapOpen: maps.mapOpen,
    onMapKey: (input: string, key: Key) => maps.onMapKey(input, key, mapView.picture, mapView.room),
  };
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
  const agent = useAgentParts({ settings: props.settings, invocation, services, dispatch, notice, phase, flushMs });
  const lab = useLabParts({ services, agent, notice, dispatch });
  const life = useLifecycle({
    services,
    invocation,
    retryMs,
    phase,
    notice,
    agent,
    lab,
    stopHint,
    onExit: props.onExit,
    unmount: app.exit,
  });
  const clearScreen = useScreenReprint(stdout, size.columns, dispatch);
  const maps = useMap({ session: agent.sessions.session, notice });
  const runCommand = useSlashCommands({
    ...slashParts(agent, lab),
    commands,
    state: () => stateRef.current,
    services,
    dispatch,
    notice,
    exit: life.exit,
    openMap: maps.openMap,
    clearScreen,
  });
  const prompt = usePromptLine({ entered: props.early?.entered, phase, agent, lab, runCommand, notice });
  const complete = useCallback((line: string) => completeCommand(commands, line), [commands]);
  const input = useLineEditor({ complete, onSubmit: prompt.submit, initial: props.early?.typed });

  // Spinner / elapsed / retry countdown tick, only while something moves.
  const now = useNow(state.live !== null || phase.phase.kind === 'down');
  const layout = frameLayout(state, size, {
    hint: hint !== undefined,
    candidates: input.candidates.length,
    picker: lab.pickers.picker !== null,
    map: maps.map !== null,
  });
  const mapView = useMapView(maps.map, maps.render, props.color, layout);
  const regression = useRegressionPrompt({ entries: state.entries, rewind: (d, cps) => void lab.rewind.rewindDevices(d, cps), notice });
  useKeys({
    ...keyParts({ agent, lab, life, phase, maps, mapView, regression }),
    enabled: isRawModeSupported,
    flashHint,
    dispatch,
    setPanelOffset,
    outputShown: () => stateRef.current.expandedToolId !== null,
    clearLine: input.clearLine,
    onEditKey: input.onEditKey,
  });
  return (
    <Frame
      state={state}
      layout={layout}
      picker={lab.pickers.picker}
      mapView={mapView}
      now={now}
      panelOffset={panelOffset}
      color={props.color}
      phase={phase.phase}
      queued={prompt.queued}
      approvalUi={agent.approvals.approvalUi}
      input={input}
      hint={hint ?? (isRawModeSupported ? undefined : 'stdin is not a terminal: input disabled')}
    />
  );
}

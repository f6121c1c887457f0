/**
 * What the TUI draws, from state only: the printed entries, the start-up and controller-down
 * screens, the live turn, the output panel, the one prompt below them (picker, map, limit
 * question, approval or input line) and the status bar.
 */
import { Box, Static } from 'ink';
import type { UiState } from '../state.js';
import type { FrameLayout } from '../layout.js';
import type { Phase } from '../hooks/usePhase.js';
import type { PickerState } from '../picker.js';
import type { MapView } from '../hooks/useMap.js';
import type { ApprovalUi } from '../hooks/useApprover.js';
import type { EditorState } from '../editor.js';
import { ColorProvider } from './theme.js';
import { EntryView, LiveTurn } from './Turn.js';
import { StatusBar } from './StatusBar.js';
import { InputLine } from './InputLine.js';
import { ApprovalPrompt } from './ApprovalPrompt.js';
import { Picker, filterItems } from './Picker.js';
import { OutputPanel } from './OutputPanel.js';
import { ConnectingScreen, ControllerDownScreen } from './Screens.js';
import { LimitPrompt } from './LimitPrompt.js';
import { MapPanel } from './MapPanel.js';

export interface PromptProps {
  state: UiState;
  layout: FrameLayout;
  picker: PickerState | null;
  mapView: MapView;
  approvalUi: ApprovalUi;
  input: { editor: EditorState; candidates: string[] };
}

/** The one thing below the live turn that takes keys: the picker, the map, a question, or the input line. */
function Prompt({ state, layout, picker, mapView, approvalUi, input }: PromptProps) {
  const { width } = layout;
  const { map, picture, room } = mapView;
  const busy = state.live !== null;
  if (picker) {
    return (
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
    );
  }
  if (map && picture) {
    return <MapPanel picture={picture} x={map.x} y={map.y} width={room.width} rows={room.rows} live={map.live} reason={map.reason} />;
  }
  if (state.limitPrompt) return <LimitPrompt request={state.limitPrompt} />;
  if (state.approval) {
    return (
      <ApprovalPrompt
        request={state.approval}
        selected={approvalUi.selected}
        feedback={approvalUi.feedback}
        maxLines={layout.approvalMax}
      />
    );
  }
  return (
    <InputLine
      value={input.editor.value}
      cursor={input.editor.cursor}
      busy={busy}
      placeholder={busy ? 'working… (Esc aborts)' : 'Ask about your lab, or /help'}
      candidates={input.candidates}
    />
  );
}

export interface FrameProps extends PromptProps {
  color: boolean;
  phase: Phase;
  /** the clock of the spinner, elapsed times and the retry countdown */
  now: number;
  /** a prompt waiting for start-up to end */
  queued: string | undefined;
  /** the status bar's flash hint */
  hint: string | undefined;
  /** how far the output panel is scrolled */
  panelOffset: number;
}

export function Frame(props: FrameProps) {
  const { state, layout, phase, now } = props;
  const { width } = layout;
  return (
    <ColorProvider color={props.color}>
      <Static key={state.epoch} items={state.entries}>
        {(e) => <EntryView key={e.key} entry={e} width={width} />}
      </Static>
      {phase.kind === 'connecting' ? <ConnectingScreen server={state.server} step={phase.step} queued={props.queued} /> : null}
      {phase.kind === 'down' ? (
        <ControllerDownScreen
          server={state.server}
          message={phase.message}
          attempts={phase.attempts}
          retryInSec={phase.retryAt === null ? null : Math.max(0, Math.ceil((phase.retryAt - now) / 1000))}
        />
      ) : null}
      {phase.kind !== 'down' ? (
        <Box flexDirection="column">
          {state.live ? <LiveTurn turn={state.live} width={width} maxRows={layout.liveRowsMax} now={now} /> : null}
          {layout.expanded ? (
            <OutputPanel call={layout.expanded} width={width} maxRows={layout.panelRows} offset={props.panelOffset} />
          ) : null}
          <Prompt {...props} />
          <StatusBar state={state} width={width} hint={props.hint} />
        </Box>
      ) : null}
    </ColorProvider>
  );
}

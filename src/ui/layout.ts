/** How the live part of the screen shares the terminal's rows. Pure. */
import { approvalRows } from './call-text.js';
import { APPROVAL_CHOICES } from './components/ApprovalPrompt.js';
import { statusLines, statusSegments } from './components/StatusBar.js';
import { findToolCall, type ToolCallView, type UiState } from './state.js';

export interface FrameLayout {
  width: number;
  /** the expanded tool call, shown in the output panel */
  expanded: ToolCallView | undefined;
  panelRows: number;
  approvalMax: number;
  pickerRows: number;
  /** the /map panel's rows (header, drawing, legend), 0 when it is closed */
  mapRows: number;
  liveRowsMax: number;
}

export function frameLayout(
  state: UiState,
  size: { columns: number; rows: number },
  o: { hint: boolean; candidates: number; picker: boolean; map?: boolean },
): FrameLayout {
  const width = Math.max(20, size.columns);
  const statusH = statusLines(statusSegments(state), width - 1).length + (o.hint ? 1 : 0);
  const screen = Math.max(8, size.rows);
  let below = statusH + 1 + (o.candidates > 1 ? 1 : 0); // input line + status
  const expanded = state.expandedToolId ? findToolCall(state, state.expandedToolId) : undefined;
  const panelRows = expanded ? Math.max(3, Math.floor((screen - statusH) / 2)) : 0;
  let approvalMax = 0;
  if (state.approval) {
    const lines = approvalRows(state.approval).reduce((n, g) => n + 1 + g.rows.length, 0);
    approvalMax = Math.min(screen - statusH - 2, lines + 3 + APPROVAL_CHOICES.length);
    below = statusH + approvalMax;
  }
  const pickerRows = o.picker ? Math.max(4, screen - statusH - 2) : 0;
  // the map takes the whole screen above the status bar (it replaces the input line)
  const mapRows = o.map && !o.picker ? Math.max(4, screen - statusH - 1) : 0;
  // One spare row: the cursor line Ink leaves below the frame.
  const liveRowsMax = Math.max(2, screen - below - panelRows - pickerRows - mapRows - 1);
  return { width, expanded, panelRows, approvalMax, pickerRows, mapRows, liveRowsMax };
}

/** TUI reducer state for tests that drive src/ui/state.ts directly, without rendering. */
import type { AgentEvent } from '../../../src/core/events.js';
import { initialState, reduce, type InitialUiState, type UiState } from '../../../src/ui/state.js';

/** A fresh TUI state: local controller, teaching mode, default limits; `over` changes any field. */
export const uiState = (over: Partial<InitialUiState> = {}): UiState =>
  initialState({
    server: 'http://127.0.0.1:3080',
    mode: 'teaching_assistant',
    model: 'm',
    limits: { max_iterations: 20, tool_limits: {}, on_limit: 'warn' },
    ...over,
  });

/** `state` after the user sent `prompt` (at 0) and the agent emitted `events` (at 1). */
export function afterTurn(prompt: string, events: AgentEvent[], state: UiState = uiState()): UiState {
  let s = reduce(state, { type: 'user_prompt', prompt, at: 0 });
  for (const event of events) s = reduce(s, { type: 'agent', event, at: 1 });
  return s;
}

/**
 * Graph state. Everything except `messages` and `summary` is per request: the
 * session resets it with the input of each send(), so limits count per request.
 * What the loop does next is derived from these fields by limitDecision (./limits.ts).
 */
import { Annotation } from '@langchain/langgraph';
import { appendMessagesReducer } from './append-reducer.js';
import type { BaseMessage } from '@langchain/core/messages';
import type { CopilotMode } from '../core/modes.js';
import type { RequestLimits } from '../core/api.js';
import type { StoppedReason } from '../core/events.js';
import type { HistorySummary } from './context.js';

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
}

const last = <T>(initial: () => T) => Annotation<T>({ reducer: (_a: T, b: T) => b, default: initial });

export const AgentState = Annotation.Root({
  messages: Annotation<BaseMessage[]>({ reducer: appendMessagesReducer, default: () => [] }),
  llm_calls: last<number>(() => 0),
  limits: last<RequestLimits>(() => ({ max_iterations: 20, tool_limits: {}, on_limit: 'warn' })),
  mode: last<CopilotMode>(() => 'teaching_assistant'),
  usage: last<Usage>(() => ({ input_tokens: 0, output_tokens: 0, total_tokens: 0 })),
  /**
   * The limit this run reached: its own (iterations, tool calls, time, cost), the tree
   * budget, or the user's Esc. It is the request's stopped_reason; null while none.
   */
  reached: last<StoppedReason | null>(() => null),
  /** whether the last LLM step offered tools: a tools-free (or refused) call is always the run's last */
  tools_offered: last<boolean>(() => true),
  /** limits crossed softly under on_limit=continue, in the order they were crossed */
  exceeded: last<StoppedReason[]>(() => []),
  /** failed root validations this request sent back to the root (recursive; ≤ root_validation_rounds) */
  root_validations: last<number>(() => 0),
  /** summary of the history that no longer fits the context window */
  summary: last<HistorySummary | null>(() => null),
});

export type AgentStateType = typeof AgentState.State;
export type AgentStateUpdate = typeof AgentState.Update;

/** The input that starts one request on a thread: the user's prompt, or a sub-agent's brief (after `notes` the protocol puts first: drift). */
export function requestInput(message: BaseMessage, limits: RequestLimits, mode: CopilotMode, notes: BaseMessage[] = []) {
  return {
    messages: [...notes, message],
    llm_calls: 0,
    limits,
    mode,
    usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
    reached: null,
    tools_offered: true,
    exceeded: [],
    root_validations: 0,
  };
}

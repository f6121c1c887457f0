/**
 * Graph state. Everything except `messages` and `summary` is per request: the
 * session resets it with the input of each send(), so limits count per request.
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
  remaining_iterations: last<number>(() => 20),
  tool_calls_count: last<number>(() => 0),
  tool_counts: last<Record<string, number>>(() => ({})),
  limits: last<RequestLimits>(() => ({ max_iterations: 20, tool_limits: {}, on_limit: 'warn' })),
  mode: last<CopilotMode>(() => 'teaching_assistant'),
  /** the topology text injected into the last system prompt */
  topology: last<string | null>(() => null),
  usage: last<Usage>(() => ({ input_tokens: 0, output_tokens: 0, total_tokens: 0 })),
  /** a limit reached in this request (its handling depends on on_limit) */
  limit_reason: last<StoppedReason | null>(() => null),
  /** the run must end now (aborted, or a limit handled) */
  stop: last<StoppedReason | null>(() => null),
  /** a limit was reached under on_limit warn/continue: one more LLM call without tools */
  final_pass: last<boolean>(() => false),
  started_at: last<number>(() => 0),
  /** summary of the history that no longer fits the context window */
  summary: last<HistorySummary | null>(() => null),
});

export type AgentStateType = typeof AgentState.State;
export type AgentStateUpdate = typeof AgentState.Update;

/** The input that starts one request on a thread: the user's prompt, or a sub-agent's brief. */
export function requestInput(message: BaseMessage, limits: RequestLimits, mode: CopilotMode) {
  return {
    messages: [message],
    llm_calls: 0,
    remaining_iterations: limits.max_iterations,
    tool_calls_count: 0,
    tool_counts: {},
    limits,
    mode,
    usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
    limit_reason: null,
    stop: null,
    final_pass: false,
    started_at: Date.now(),
  };
}

/**
 * The graph's limit node and the facts every branch of the loop is decided on
 * (limitDecision, ./limits.ts): it answers the calls that will not run and, when the run
 * ends without an answer saying so, adds the limit note.
 */
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { AIMessage } from '@langchain/core/messages';
import type { StoppedReason, ToolErrorCode, ToolStatus } from '../core/events.js';
import type { AgentStateType, AgentStateUpdate } from './state.js';
import { elapsedOut, runOf, stopReasonOf, type GraphDeps, type RunControl } from './graph-deps.js';
import { limitDecision, limitNote, type LoopFacts } from './limits.js';
import { iterationLimitMessage, pendingNotExecutedMessage, toolsNotOfferedMessage } from '../tools/limit-wording.js';
import { danglingToolCalls, toolMessage } from './history.js';
import { isProtocolNote } from './tree/protocol-notes.js';
import { messageText } from '../sessions/message-text.js';
import { reportLimit } from './limit-report.js';
import { resultJson, type ToolResult } from '../tools/registry.js';

/** The loop's facts for limitDecision: the state, plus what only the run knows (its clock, whether it is a child). */
export function factsOf(state: AgentStateType, run: RunControl): LoopFacts {
  const last = state.messages[state.messages.length - 1];
  return {
    limit: state.reached,
    tools_offered: state.tools_offered,
    llm_calls: state.llm_calls,
    limits: state.limits,
    pending: danglingToolCalls(state.messages).length,
    answered: last?.getType() === 'ai' && messageText(last).trim() !== '',
    // a protocol note (a held answer) is read by the model like a tool result
    results: last?.getType() === 'tool' || isProtocolNote(last),
    child: run.agent !== undefined,
    clock: run.signal.aborted ? stopReasonOf(run.signal) : elapsedOut(run) ? 'max_time' : null,
  };
}

export function limitNode(deps: Pick<GraphDeps, 'log'>) {
  return async (state: AgentStateType, config: LangGraphRunnableConfig): Promise<AgentStateUpdate> => {
    const run = runOf(config);
    const d = limitDecision(factsOf(state, run));
    const reason: StoppedReason = d.kind === 'end' ? d.reason : (state.reached ?? 'done');
    const status: ToolStatus = reason === 'aborted' || reason === 'max_time' ? 'aborted' : 'limit';
    const pending = danglingToolCalls(state.messages).map((c) => {
      const why =
        reason === 'max_iterations'
          ? iterationLimitMessage(state.llm_calls, state.limits.max_iterations, c.name)
          : !state.tools_offered
            ? toolsNotOfferedMessage(c.name)
            : pendingNotExecutedMessage(reason);
      const code: ToolErrorCode =
        status === 'aborted' ? 'stopped' : reason !== 'max_iterations' && !state.tools_offered ? 'not_available' : 'limit';
      const r: ToolResult = { status, output: resultJson(status, why), code };
      run.emit({ type: 'tool_end', id: c.id, name: c.name, status, duration_ms: 0, output: r.output, code });
      return toolMessage(c, r);
    });
    if (d.kind !== 'end' || reason === 'aborted') return { messages: pending, ...(reason !== 'done' ? { reached: reason } : {}) };
    if (reason === 'max_time' && state.reached !== 'max_time') reportLimit(deps.log, run, state, reason, 'stop');
    if (!d.note) return { messages: pending, reached: reason };
    const note = limitNote(reason, state.limits, {
      llm_calls: state.llm_calls,
      tool_calls: run.counters.count,
      budget: run.budget?.exhausted() ?? null,
      ...(run.counters.cost ? { spent_usd: run.counters.cost.spent } : {}),
    });
    run.emit({ type: 'content', delta: `\n\n${note}` });
    return { messages: [...pending, new AIMessage(note)], reached: reason };
  };
}

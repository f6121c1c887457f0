/**
 * The graph's llm_call node: one LLM call of an agent's loop, in three parts — planCall
 * (limits, tree budget, context, --max-cost), streamTurn (the model's answer as events and
 * normalised tool calls) and judgeAnswer (the review gate, the root Validator) — with the
 * call booked between the last two. An aborted stream is not an exception here: its partial
 * text becomes the answer, marked interrupted.
 */
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { AIMessage, SystemMessage } from '@langchain/core/messages';
import type { AgentStateType, AgentStateUpdate } from './state.js';
import { chatModels, runOf, stopReasonOf, type GraphDeps, type RunControl } from './graph-deps.js';
import { planCall, type PlannedCall, type SchemaTokens } from './plan-call.js';
import { streamTurn, type Turn } from './turn.js';
import { judgeAnswer } from './judge-answer.js';
import { reportLimit } from './limit-report.js';
import { addUsage, isContextOverflow } from './completion.js';
import { messageText } from '../sessions/message-text.js';
import { errorMessage } from '../errors.js';

export function llmCallNode(deps: GraphDeps, tokens: SchemaTokens) {
  return async (state: AgentStateType, config: LangGraphRunnableConfig): Promise<AgentStateUpdate> => {
    const run = runOf(config);
    if (run.signal.aborted) return { reached: stopReasonOf(run.signal) };
    const planned = await planCall(deps, state, run, tokens);
    if (!planned.made) return planned.update;
    const p = planned.plan;
    const turn = await answer(deps, run, p).catch((err: unknown) => {
      p.call.failed(); // the models could not be built: nothing was sent
      throw err;
    });
    const common: AgentStateUpdate = {
      ...(p.raisedLimits ? { limits: p.raisedLimits } : {}),
      llm_calls: state.llm_calls + 1,
      tools_offered: p.tools,
      exceeded: p.exceeded,
      ...(p.limit ? { reached: p.limit } : {}),
      ...(p.context.summary ? { summary: p.context.summary } : {}),
    };
    if (!turn.ok) {
      const usage = turn.partial?.usage_metadata;
      if (!run.signal.aborted) {
        p.call.failed(usage);
        throw turn.error;
      }
      p.call.stopped(usage);
      const partial = turn.partial ? messageText(turn.partial) : '';
      return {
        ...common,
        usage: addUsage(state.usage, turn.partial),
        messages: partial ? [new AIMessage(`${partial}\n\n[interrupted]`)] : [],
        reached: stopReasonOf(run.signal),
      };
    }
    const within = p.call.book(turn.chunk.usage_metadata);
    deps.log.info('LLM call completed', {
      input_tokens: turn.chunk.usage_metadata?.input_tokens ?? 0,
      output_tokens: turn.chunk.usage_metadata?.output_tokens ?? 0,
      tool_calls: turn.calls.length,
      final_pass: !p.tools,
    });
    const usage = addUsage(state.usage, turn.chunk);
    const judged = await judgeAnswer(deps, state, run, {
      message: turn.message,
      tools: p.tools,
      within,
      budgetEnded: p.limit === 'budget' || !within,
      caller: p.caller,
    });
    if (judged) return { ...common, ...judged, usage };
    // a crossed tree budget: no tool call of this response runs (limitDecision)
    const crossed = !within && !p.limit;
    if (crossed) reportLimit(deps.log, run, state, 'budget', run.agent ? 'stop' : 'wrap_up');
    return { ...common, messages: [turn.message], usage, ...(crossed ? { reached: 'budget' as const } : {}) };
  };
}

/**
 * The model's turn. When the provider says the prompt is too long (the configured
 * context_limit was too optimistic for this model), the context is trimmed to half the
 * budget and the model asked once more instead of failing the request.
 */
async function answer(deps: GraphDeps, run: RunControl, p: PlannedCall): Promise<Turn> {
  const { chat } = await chatModels(deps);
  const model = p.schemas.length ? chat.bindTools(p.schemas) : chat;
  const opts = { endpoint: deps.endpoint, log: deps.log, ...(deps.idleTimeoutMs ? { idleTimeoutMs: deps.idleTimeoutMs } : {}) };
  const turn = await streamTurn(model, [new SystemMessage(p.context.system), ...p.context.messages], run, opts);
  if (turn.ok || run.signal.aborted || !isContextOverflow(turn.error)) return turn;
  deps.log.warn('provider says the prompt is too long; retrying with half the context budget', { error: errorMessage(turn.error) });
  const context = await p.prepare(0.5);
  return streamTurn(model, [new SystemMessage(context.system), ...context.messages], run, opts);
}

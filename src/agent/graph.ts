/**
 * The agent graph: START → llm_call → (tools | limit | llm_call | title | END),
 * tools → (llm_call | limit | title | END), limit → (llm_call | title | END), title → END.
 * Every branch is limitDecision (./limits.ts) over the state; the limit node answers
 * the calls that will not run and adds the limit note.
 *
 * Nodes never let an abort escape as an exception: an aborted LLM stream or tool
 * becomes state (partial text, `aborted` tool results, limit='aborted'), so every
 * checkpoint holds a valid history and the next request just works.
 */
import { randomUUID } from 'node:crypto';
import { END, START, StateGraph, type BaseCheckpointSaver } from '@langchain/langgraph';
import { AIMessage, AIMessageChunk, HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { StoppedReason, ToolStatus } from '../core/events.js';
import { AgentState, type AgentStateType, type AgentStateUpdate } from './state.js';
import { logContext, logPreparing } from './context-log.js';
import { prepareContext, toolSchemaTokens, type ContextPlan, type Summarizer } from './context.js';
import { byteBoundTokens, MeteredCall, meteredCompletion, runScope } from './metered-call.js';
import { askRaise, costRaiseTarget, iterationRaiseTarget } from './limit-raise.js';
import type { RequestLimits } from '../core/api.js';
import { SUMMARY_MAX_TOKENS, TITLE_MAX_TOKENS } from './session/models.js';
import { roundUsd } from './pricing.js';
import { messageText } from './tokens.js';
import { resultJson, type ToolResult } from '../tools/registry.js';
import {
  callPlan,
  enforcedLimits,
  iterationLimitMessage,
  limitDecision,
  limitEventMessage,
  limitNote,
  pendingNotExecutedMessage,
  toolsNotOfferedMessage,
  wrapUpInstruction,
  type LoopFacts,
} from './limits.js';
import { errorMessage } from '../errors.js';
import { fallbackTitle } from '../sessions/store.js';
import {
  elapsedOut,
  runCaller,
  stopReasonOf,
  type ChatModels,
  type GraphDeps,
  type InjectedTopology,
  type RunControl,
} from './graph-deps.js';
import { danglingToolCalls, toolMessage } from './history.js';
import { normaliseToolCalls } from './tool-calls.js';
import { streamAnswer } from './llm-stream.js';
import { addUsage, isContextOverflow } from './completion.js';
import { toolsNode } from './tools-node.js';
import { isProtocolNote, reviewGateNote, rootValidationNote } from './tree/protocol-notes.js';
import { rootFindings } from './tree/root-validator.js';

export function buildGraph(deps: GraphDeps, checkpointer: BaseCheckpointSaver) {
  const toolsTokensCache = new Map<string, number>();
  const models = (): Promise<ChatModels> => (typeof deps.models === 'function' ? deps.models() : Promise.resolve(deps.models));

  /** The dropped history in one paragraph: a metered call of the run's (not made: the history is dropped instead). */
  const summarizer: Summarizer = async (dropped, previous) => {
    const run = deps.run();
    const transcript = dropped.map((m) => `${m.getType().toUpperCase()}: ${messageText(m).slice(0, 4000)}`).join('\n');
    const messages = [
      new SystemMessage(deps.prompts.get('summary')),
      new HumanMessage(`${previous ? `Earlier summary:\n${previous}\n\n` : ''}Messages to summarize:\n${transcript}`),
    ];
    const call = await meteredCompletion(new MeteredCall(runScope(run, deps.cost.price), 'summary'), (await models()).summary, messages, {
      signal: run.signal,
      inputTokens: byteBoundTokens(messages),
      maxOutputTokens: SUMMARY_MAX_TOKENS,
    });
    if (!call.made)
      throw new Error(
        call.why === 'budget'
          ? 'the tree budget has no LLM call left for a summary'
          : 'the cost limit (--max-cost) leaves no room for a summary',
      );
    return messageText(call.res);
  };

  /** The loop's facts for limitDecision: the state, plus what only the run knows (its clock, whether it is a child). */
  const factsOf = (state: AgentStateType): LoopFacts => {
    const run = deps.run();
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
  };

  /** A limit the run reached, said once: a `limit` event and a warn line. */
  const reached = (run: RunControl, state: AgentStateType, reason: StoppedReason, action: 'stop' | 'wrap_up' | 'continue') => {
    const budget = reason === 'budget' ? (run.budget?.exhausted() ?? null) : null;
    run.emit({ type: 'limit', reason, action, message: limitEventMessage(reason, action, state.limits, budget) });
    deps.log.warn(action === 'continue' ? 'limit crossed (on_limit continue)' : 'limit reached', {
      reason,
      action,
      on_limit: state.limits.on_limit,
      ...(budget ? { budget } : {}),
      llm_calls: state.llm_calls,
      tool_calls: run.counters.count,
    });
  };

  async function llmCall(state: AgentStateType): Promise<AgentStateUpdate> {
    const run = deps.run();
    if (run.signal.aborted) return { reached: stopReasonOf(run.signal) };
    let plan = callPlan(state);
    // the TUI asks before the last allowed iteration whether to raise --max-iterations
    let raisedLimits: RequestLimits | undefined;
    const raiser = deps.limitRaiser;
    if (plan.last === 'max_iterations' && !state.reached && raiser) {
      const t = iterationRaiseTarget(state.limits, state.llm_calls + 1);
      raisedLimits = t ? await raiser.turn(() => askRaise(raiser, t, state.limits, run, deps.log), run.signal) : undefined;
      if (raisedLimits) plan = callPlan({ ...state, limits: raisedLimits });
    }
    // the tree's budget (recursive): a run's own wrap-up is an ordinary call to it
    const call = new MeteredCall(runScope(run, deps.cost.price), 'agent');
    const budget = call.reserveCall();
    if (budget === 'denied') {
      if (!state.reached) reached(run, state, 'budget', 'stop');
      return { reached: state.reached ?? 'budget', tools_offered: false };
    }
    // 'final': the tree budget is gone and this is the root's reserved final call, without tools
    let tools = plan.tools && budget === 'ok';
    let limit = state.reached ?? (budget === 'final' ? 'budget' : plan.last);
    if (limit && !state.reached) reached(run, state, limit, 'wrap_up');
    const exceeded =
      state.limits.on_limit === 'continue' &&
      state.llm_calls + 1 > state.limits.max_iterations &&
      !state.exceeded.includes('max_iterations')
        ? [...state.exceeded, 'max_iterations' as const]
        : state.exceeded;
    if (exceeded !== state.exceeded) reached(run, state, 'max_iterations', 'continue');

    await deps.counter.ready();
    const caller = runCaller(run);
    const toolsTokensOf = (withTools: boolean) => {
      const schemas = withTools ? deps.registry.schemas(state.mode, caller) : [];
      const key = withTools
        ? `${caller.tools ? `${state.mode}:${[...caller.tools].join(',')}` : state.mode}${caller.pendingReviews?.length ? ':review' : ''}`
        : '-';
      let n = toolsTokensCache.get(key);
      if (n === undefined) toolsTokensCache.set(key, (n = toolSchemaTokens(deps.counter, schemas)));
      return { schemas, toolsTokens: n };
    };
    let { schemas, toolsTokens } = toolsTokensOf(tools);

    let topo: InjectedTopology | undefined;
    try {
      topo = await deps.topology(run.signal);
    } catch (err) {
      deps.log.warn('topology refresh failed', { error: errorMessage(err) });
    }
    const systemFor = (l: StoppedReason | null) => deps.prompts.system(state.mode, topo?.text) + (l ? wrapUpInstruction(l) : '');
    let system = systemFor(limit);
    const prepare = async (ratioScale?: number) => {
      logPreparing(deps.log, state.messages.length);
      const plan = await prepareContext(
        { system, history: state.messages, summary: state.summary, toolsTokens },
        {
          limitK: deps.context.limitK,
          strategy: deps.context.strategy,
          counter: deps.counter,
          ...(deps.context.summarize ? { summarizer } : {}),
          ...(ratioScale ? { ratioScale } : {}),
        },
      );
      run.emit({
        type: 'context',
        tokens: plan.tokens,
        tools_tokens: plan.toolsTokens,
        limit: plan.limit,
        percent: plan.percent,
        trimmed: plan.trimmed,
        llm_call: state.llm_calls + 1,
      });
      logContext(deps.log, plan, {
        strategy: deps.context.strategy,
        limitK: deps.context.limitK,
        topology: topo,
        historyMessages: state.messages.length,
        finalPass: !tools,
      });
      return plan;
    };
    let context = await prepare();

    // --max-cost: reserve the call's worst case; one that would cross is not made
    const meter = call.meter;
    const worst = (c: ContextPlan) => call.worstUsd(c.tokens + c.toolsTokens, deps.cost.maxOutputTokens);
    let fits = call.reserveCost(worst(context));
    if (meter && !fits && raiser && !state.reached) {
      // the TUI asks whether to raise the cost limit before the call is given up
      fits = await raiser.turn(async () => {
        if (run.signal.aborted) return false;
        // a parallel run's raise while this one waited for its turn may be enough
        if (call.reserveCost(worst(context))) return true;
        const t = costRaiseTarget(meter, worst(context));
        const raised = t ? await askRaise(raiser, t, raisedLimits ?? state.limits, run, deps.log) : undefined;
        if (!raised) return false;
        meter.raise(t!.raise_to);
        raisedLimits = raised;
        return call.reserveCost(worst(context));
      }, run.signal);
    }
    if (meter && !fits && tools && state.limits.on_limit !== 'fail') {
      // the call with tools would cross: a tools-free answer may still fit
      tools = false;
      ({ schemas, toolsTokens } = toolsTokensOf(false));
      limit ??= 'max_cost';
      system = systemFor(limit);
      context = await prepare();
      fits = call.reserveCost(worst(context));
      if (fits && limit === 'max_cost') reached(run, state, 'max_cost', 'wrap_up');
    }
    if (meter && !fits) {
      call.cancel();
      if (state.reached !== 'max_cost') reached(run, state, 'max_cost', 'stop');
      deps.log.warn('LLM call not made: its worst case would cross --max-cost', {
        worst_usd: roundUsd(worst(context)),
        spent_usd: roundUsd(meter.spent),
        max_cost: meter.max,
      });
      return { reached: 'max_cost', tools_offered: false, exceeded, ...(context.summary ? { summary: context.summary } : {}) };
    }

    const { chat } = await models();
    const model = schemas.length ? chat.bindTools(schemas) : chat;
    const sink: { chunk?: AIMessageChunk } = {};
    const streamOpts = { endpoint: deps.endpoint, log: deps.log, ...(deps.idleTimeoutMs ? { idleTimeoutMs: deps.idleTimeoutMs } : {}) };
    const common: AgentStateUpdate = {
      ...(raisedLimits ? { limits: raisedLimits } : {}),
      llm_calls: state.llm_calls + 1,
      tools_offered: tools,
      exceeded,
      ...(limit ? { reached: limit } : {}),
    };
    try {
      try {
        await streamAnswer(model, [new SystemMessage(context.system), ...context.messages], run, streamOpts, sink);
      } catch (err) {
        // The configured context_limit was too optimistic for this model: trim
        // to half the budget and try once more instead of failing the request.
        if (run.signal.aborted || !isContextOverflow(err)) throw err;
        deps.log.warn('provider says the prompt is too long; retrying with half the context budget', { error: errorMessage(err) });
        context = await prepare(0.5);
        await streamAnswer(model, [new SystemMessage(context.system), ...context.messages], run, streamOpts, sink);
      }
    } catch (err) {
      if (!run.signal.aborted) {
        call.failed(sink.chunk?.usage_metadata);
        throw err;
      }
      call.stopped(sink.chunk?.usage_metadata);
      const partial = sink.chunk ? messageText(sink.chunk) : '';
      return {
        ...common,
        ...(context.summary ? { summary: context.summary } : {}),
        usage: addUsage(state.usage, sink.chunk),
        messages: partial ? [new AIMessage(`${partial}\n\n[interrupted]`)] : [],
        reached: stopReasonOf(run.signal),
      };
    }
    const chunk = sink.chunk ?? new AIMessageChunk({ content: '' });
    const within = call.book(chunk.usage_metadata);
    const calls = normaliseToolCalls(chunk);
    const ai = new AIMessage({
      content: typeof chunk.content === 'string' ? chunk.content : messageText(chunk),
      tool_calls: calls.map((c) => ({ ...c, type: 'tool_call' as const })),
      ...(chunk.usage_metadata ? { usage_metadata: chunk.usage_metadata } : {}),
      // Our own id, never the provider's: the messages reducer replaces messages with
      // equal ids, and some OpenAI-compatible servers repeat completion ids.
      id: randomUUID(),
    });
    deps.log.info('LLM call completed', {
      input_tokens: chunk.usage_metadata?.input_tokens ?? 0,
      output_tokens: chunk.usage_metadata?.output_tokens ?? 0,
      tool_calls: calls.length,
      final_pass: !tools,
    });
    for (const c of calls) run.emit({ type: 'tool_call', id: c.id, name: c.name, args: c.args });
    // the review gate: an answer while reports await this agent's review is held while an iteration is left
    const held =
      tools &&
      within &&
      calls.length === 0 &&
      caller.pendingReviews?.length &&
      state.llm_calls + 1 < enforcedLimits(state.limits).max_iterations
        ? caller.pendingReviews
        : undefined;
    if (held) {
      const note = reviewGateNote(held);
      run.emit({ type: 'notice', message: `answer held: ${held.length} sub-agent report${held.length === 1 ? '' : 's'} await review` });
      return {
        ...common,
        ...(context.summary ? { summary: context.summary } : {}),
        messages: [ai, note],
        usage: addUsage(state.usage, chunk),
      };
    }
    // the root Validator (recursive): a candidate final answer completes only once it passes,
    // or when the rounds (root_validation_rounds) or the iterations are used up
    if (tools && within && calls.length === 0 && !run.agent && deps.validateAnswer && !run.signal.aborted) {
      const v = await deps.validateAnswer({ messages: [...state.messages, ai], answer: messageText(ai), run });
      if (v) {
        run.emit({ type: 'validation', verdict: v.verdict, summary: v.summary, checks: v.checks });
        const rounds = deps.rootValidationRounds ?? 0;
        const retry =
          v.verdict === 'fail' &&
          state.root_validations < rounds &&
          state.llm_calls + 1 < enforcedLimits(state.limits).max_iterations &&
          !run.signal.aborted;
        if (retry)
          return {
            ...common,
            ...(context.summary ? { summary: context.summary } : {}),
            messages: [ai, rootValidationNote(rootFindings(v, state.root_validations + 1, rounds))],
            usage: addUsage(state.usage, chunk),
            root_validations: state.root_validations + 1,
          };
      }
    }
    // a crossed tree budget: no tool call of this response runs (limitDecision)
    if (!within && !limit) reached(run, state, 'budget', run.agent ? 'stop' : 'wrap_up');
    return {
      ...common,
      ...(context.summary ? { summary: context.summary } : {}),
      messages: [ai],
      usage: addUsage(state.usage, chunk),
      ...(!within && !limit ? { reached: 'budget' as const } : {}),
    };
  }

  /** Answers the calls that will not run and, when the run ends without an answer saying so, adds the limit note. */
  async function limitNode(state: AgentStateType): Promise<AgentStateUpdate> {
    const run = deps.run();
    const d = limitDecision(factsOf(state));
    const reason: StoppedReason = d.kind === 'end' ? d.reason : (state.reached ?? 'done');
    const status: ToolStatus = reason === 'aborted' || reason === 'max_time' ? 'aborted' : 'limit';
    const pending = danglingToolCalls(state.messages).map((c) => {
      const why =
        reason === 'max_iterations'
          ? iterationLimitMessage(state.llm_calls, state.limits.max_iterations, c.name)
          : !state.tools_offered
            ? toolsNotOfferedMessage(c.name)
            : pendingNotExecutedMessage(reason);
      const r: ToolResult = { status, output: resultJson(status, why) };
      run.emit({ type: 'tool_end', id: c.id, name: c.name, status, duration_ms: 0, output: r.output });
      return toolMessage(c, r);
    });
    if (d.kind !== 'end' || reason === 'aborted') return { messages: pending, ...(reason !== 'done' ? { reached: reason } : {}) };
    if (reason === 'max_time' && state.reached !== 'max_time') reached(run, state, reason, 'stop');
    if (!d.note) return { messages: pending, reached: reason };
    const note = limitNote(reason, state.limits, {
      llm_calls: state.llm_calls,
      tool_calls: run.counters.count,
      budget: run.budget?.exhausted() ?? null,
      ...(run.counters.cost ? { spent_usd: run.counters.cost.spent } : {}),
    });
    run.emit({ type: 'content', delta: `\n\n${note}` });
    return { messages: [...pending, new AIMessage(note)], reached: reason };
  }

  async function titleNode(state: AgentStateType): Promise<AgentStateUpdate> {
    const run = deps.run();
    const firstUser = state.messages.find((m) => m.getType() === 'human');
    const question = firstUser ? messageText(firstUser) : '';
    const answer = [...state.messages].reverse().find((m) => m.getType() === 'ai' && messageText(m));
    let title = '';
    let usage = state.usage;
    const messages = [
      new SystemMessage(deps.prompts.get('title')),
      new HumanMessage(`User: ${question.slice(0, 2000)}\n\nAssistant: ${(answer ? messageText(answer) : '').slice(0, 1000)}`),
    ];
    // a call like any other (--max-cost, the tree budget): when it is not made or fails, the first words are the title
    if (!run.signal.aborted) {
      try {
        const call = await meteredCompletion(new MeteredCall(runScope(run, deps.cost.price), 'title'), (await models()).title, messages, {
          signal: AbortSignal.any([run.signal, AbortSignal.timeout(15_000)]),
          inputTokens: messages.reduce((n, m) => n + deps.counter.message(m), 0),
          maxOutputTokens: TITLE_MAX_TOKENS,
        });
        if (call.made) {
          title = messageText(call.res);
          usage = addUsage(usage, call.res);
        }
      } catch (err) {
        deps.log.warn('title generation failed, using the first words of the message', { error: errorMessage(err) });
      }
    }
    deps.saveTitle(title.trim() ? title : fallbackTitle(question));
    return { usage };
  }

  const finish = (reason: StoppedReason): string => (reason === 'aborted' || !deps.needsTitle() ? END : 'title');
  /** After an LLM call or a round of tools: run the tools, call the model again, or end (through the limit node when calls are left unanswered or a note is due). */
  const route = (state: AgentStateType): string => {
    const f = factsOf(state);
    const d = limitDecision(f);
    if (d.kind === 'tools') return 'tools';
    if (f.pending > 0 || (d.kind === 'end' && d.note)) return 'limit';
    return d.kind === 'llm' ? 'llm_call' : finish(d.reason);
  };
  const afterLimit = (state: AgentStateType): string => {
    const d = limitDecision(factsOf(state));
    return d.kind === 'end' ? finish(d.reason) : 'llm_call';
  };

  return new StateGraph(AgentState)
    .addNode('llm_call', llmCall)
    .addNode('tools', toolsNode(deps))
    .addNode('limit', limitNode)
    .addNode('title', titleNode)
    .addEdge(START, 'llm_call')
    .addConditionalEdges('llm_call', route, ['tools', 'limit', 'llm_call', 'title', END])
    .addConditionalEdges('tools', route, ['llm_call', 'limit', 'title', END])
    .addConditionalEdges('limit', afterLimit, ['llm_call', 'title', END])
    .addEdge('title', END)
    .compile({ checkpointer });
}

export type AgentGraph = ReturnType<typeof buildGraph>;

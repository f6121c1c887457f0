/**
 * The agent graph: START → llm_call → (tools | limit | title | END), tools → llm_call
 * (or limit), limit → (llm_call for on_limit=continue | title | END), title → END.
 *
 * Nodes never let an abort escape as an exception: an aborted LLM stream or tool
 * becomes state (partial text, `aborted` tool results, stop='aborted'), so every
 * checkpoint holds a valid history and the next request just works.
 */
import { randomUUID } from 'node:crypto';
import { END, START, StateGraph, type BaseCheckpointSaver } from '@langchain/langgraph';
import { AIMessage, AIMessageChunk, HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { BaseMessage } from '@langchain/core/messages';
import type { StoppedReason, ToolStatus } from '../core/events.js';
import { AgentState, type AgentStateType, type AgentStateUpdate } from './state.js';
import { logContext } from './context-log.js';
import { prepareContext, toolSchemaTokens, type Summarizer } from './context.js';
import { messageText } from './tokens.js';
import { resultJson, type ToolResult } from '../tools/registry.js';
import { INVALID_ARGS_KEY } from '../tools/gate.js';
import { iterationLimitMessage, limitNote, pendingNotExecutedMessage } from './limits.js';
import { isAbortErrorStrict, withProviderRetry } from './providers.js';
import { errorMessage } from '../errors.js';
import { fallbackTitle } from '../sessions/store.js';
import { boundToolArgs } from './input-limits.js';
import { IdleWatchdog } from './stream-guard.js';
import { elapsedOut, runCaller, stopReasonOf, type ChatModels, type GraphDeps } from './graph-deps.js';
import { danglingToolCalls, lastAi, toolMessage, type ToolCall } from './history.js';
import { addUsage, completeText, isContextOverflow } from './completion.js';
import { toolsNode } from './tools-node.js';

export function buildGraph(deps: GraphDeps, checkpointer: BaseCheckpointSaver) {
  const toolsTokensCache = new Map<string, number>();
  const models = (): Promise<ChatModels> => (typeof deps.models === 'function' ? deps.models() : Promise.resolve(deps.models));

  const summarizer: Summarizer = async (dropped, previous) => {
    const transcript = dropped.map((m) => `${m.getType().toUpperCase()}: ${messageText(m).slice(0, 4000)}`).join('\n');
    const res = await completeText(
      (await models()).summary,
      [
        new SystemMessage(deps.prompts.get('summary')),
        new HumanMessage(`${previous ? `Earlier summary:\n${previous}\n\n` : ''}Messages to summarize:\n${transcript}`),
      ],
      deps.run().signal,
    );
    return messageText(res);
  };

  async function llmCall(state: AgentStateType): Promise<AgentStateUpdate> {
    const run = deps.run();
    if (run.signal.aborted) return { stop: stopReasonOf(run.signal) };
    const gate = run.budget?.reserve(state.final_pass) ?? 'ok';
    if (gate === 'denied') return { stop: 'budget', limit_reason: 'budget' };
    // the tree budget ran out: this is the root's reserved final call, without tools
    const finalPass = state.final_pass || gate === 'final';
    const limitReason = gate === 'final' ? 'budget' : state.limit_reason;
    await deps.counter.ready();
    const caller = runCaller(run);
    const schemas = finalPass ? [] : deps.registry.schemas(state.mode, caller);
    const key = finalPass ? '-' : caller.tools ? `${state.mode}:${[...caller.tools].join(',')}` : state.mode;
    let toolsTokens = toolsTokensCache.get(key);
    if (toolsTokens === undefined) toolsTokensCache.set(key, (toolsTokens = toolSchemaTokens(deps.counter, schemas)));

    let topo: string | undefined;
    try {
      topo = await deps.topologyText(run.signal);
    } catch (err) {
      deps.log.warn('topology refresh failed', { error: errorMessage(err) });
    }
    let system = deps.prompts.system(state.mode, topo);
    if (finalPass)
      system += `\n\n## Limit reached\nThis request reached a limit (${limitReason}). Do not call tools. Answer the user now with what you have, and say what is left undone.`;
    const prepare = async (ratioScale?: number) => {
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
      if (plan.warning) deps.log.warn(plan.warning);
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
        finalPass: state.final_pass,
      });
      return plan;
    };
    let plan = await prepare();

    const { chat } = await models();
    const model = schemas.length ? chat.bindTools(schemas) : chat;
    let acc: AIMessageChunk | undefined;
    const streamOnce = (input: BaseMessage[]) =>
      withProviderRetry(
        async () => {
          acc = undefined;
          let shown = false;
          const idle = new IdleWatchdog(deps.idleTimeoutMs, run.signal);
          try {
            const stream = await model.stream(input, { signal: idle.signal });
            for await (const chunk of stream) {
              idle.kick();
              acc = acc ? acc.concat(chunk) : chunk;
              const delta = typeof chunk.content === 'string' ? chunk.content : messageText(chunk);
              if (delta) {
                shown = true;
                run.emit({ type: 'content', delta });
              }
            }
            // end of this answer's text: an empty delta lets the redacting queue release held words
            if (shown) run.emit({ type: 'content', delta: '' });
          } catch (raw) {
            const err = idle.translate(raw, run.signal);
            // Text already shown cannot be taken back: do not retry then.
            if (shown && !isAbortErrorStrict(err)) throw Object.assign(new Error('stream failed'), { committed: true, inner: err });
            throw err;
          } finally {
            idle.stop();
          }
        },
        {
          endpoint: deps.endpoint,
          signal: run.signal,
          onRetry: (attempt, err, delay) =>
            deps.log.warn('LLM call failed, retrying', { attempt, delay_ms: Math.round(delay), error: errorMessage(err) }),
        },
      );
    try {
      try {
        await streamOnce([new SystemMessage(plan.system), ...plan.messages]);
      } catch (err) {
        // The configured context_limit was too optimistic for this model: trim
        // to half the budget and try once more instead of failing the request.
        if (run.signal.aborted || !isContextOverflow(err)) throw err;
        deps.log.warn('provider says the prompt is too long; retrying with half the context budget', { error: errorMessage(err) });
        plan = await prepare(0.5);
        await streamOnce([new SystemMessage(plan.system), ...plan.messages]);
      }
    } catch (err) {
      const common = { llm_calls: state.llm_calls + 1, remaining_iterations: state.remaining_iterations - 1, topology: topo ?? null };
      if (run.signal.aborted) {
        const partial = acc ? messageText(acc) : '';
        return {
          ...common,
          ...(plan.summary ? { summary: plan.summary } : {}),
          usage: addUsage(state.usage, acc),
          messages: partial ? [new AIMessage(`${partial}\n\n[interrupted]`)] : [],
          stop: stopReasonOf(run.signal),
        };
      }
      throw err;
    }
    const common: AgentStateUpdate = {
      llm_calls: state.llm_calls + 1,
      remaining_iterations: state.remaining_iterations - 1,
      topology: topo ?? null,
      ...(plan.summary ? { summary: plan.summary } : {}),
    };
    const chunk = acc ?? new AIMessageChunk({ content: '' });
    const calls: ToolCall[] = (chunk.tool_calls ?? []).map((c, i) => ({
      id: c.id || `call_${Date.now().toString(36)}_${i}`,
      name: c.name,
      args: boundToolArgs((c.args ?? {}) as Record<string, unknown>),
    }));
    // Arguments that were not valid JSON still get a call (and an error result) so the model learns.
    for (const [i, c] of (chunk.invalid_tool_calls ?? []).entries())
      calls.push({ id: c.id || `call_invalid_${i}`, name: c.name ?? 'unknown', args: boundToolArgs({ [INVALID_ARGS_KEY]: c.args ?? '' }) });
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
      final_pass: state.final_pass,
    });
    for (const c of calls) run.emit({ type: 'tool_call', id: c.id, name: c.name, args: c.args });
    const within = run.budget?.book(chunk.usage_metadata ?? {}) ?? true;
    if (gate === 'final' || !within) {
      // A crossed tree budget: no tool call of this response runs; a child stops, the root
      // answers (this answer, or one more reserved call without tools).
      const how: AgentStateUpdate =
        gate === 'final' ? { final_pass: true } : run.agent ? { stop: 'budget' } : calls.length ? { final_pass: true } : {};
      return { ...common, messages: [ai], usage: addUsage(state.usage, chunk), limit_reason: 'budget', ...how };
    }
    return { ...common, messages: [ai], usage: addUsage(state.usage, chunk) };
  }

  /** Handles a reached limit or an abort: answers pending calls, applies on_limit. */
  async function limitNode(state: AgentStateType): Promise<AgentStateUpdate> {
    const run = deps.run();
    let reason: StoppedReason =
      state.stop ?? state.limit_reason ?? (elapsedOut(run) ? 'max_time' : state.remaining_iterations <= 0 ? 'max_iterations' : 'done');
    if (state.final_pass && !state.stop) reason = state.limit_reason ?? reason;
    const status: ToolStatus = reason === 'aborted' || reason === 'max_time' ? 'aborted' : 'limit';
    const pending = danglingToolCalls(state.messages).map((c) => {
      const why =
        reason === 'max_iterations'
          ? iterationLimitMessage(state.llm_calls, state.limits.max_iterations, c.name)
          : pendingNotExecutedMessage(reason);
      const r: ToolResult = { status, output: resultJson(status, why) };
      run.emit({ type: 'tool_end', id: c.id, name: c.name, status, duration_ms: 0, output: r.output });
      return toolMessage(c, r);
    });
    if (reason === 'aborted') return { messages: pending, stop: 'aborted' };
    if (!state.final_pass)
      deps.log.warn('limit reached', {
        reason,
        on_limit: state.limits.on_limit,
        llm_calls: state.llm_calls,
        tool_calls: state.tool_calls_count,
      });
    if (reason === 'budget' && state.final_pass && !state.stop) return { messages: pending, final_pass: true, limit_reason: 'budget' };
    // warn and continue: the model reads the refusals and answers once more, without tools
    if (state.limits.on_limit !== 'fail' && !state.final_pass && reason !== 'max_time' && reason !== 'done')
      return { messages: pending, final_pass: true, limit_reason: reason };
    const note = limitNote(reason, state.limits, state);
    run.emit({ type: 'content', delta: `\n\n${note}` });
    return { messages: [...pending, new AIMessage(note)], limit_reason: reason, stop: reason };
  }

  async function titleNode(state: AgentStateType): Promise<AgentStateUpdate> {
    const run = deps.run();
    const firstUser = state.messages.find((m) => m.getType() === 'human');
    const question = firstUser ? messageText(firstUser) : '';
    const answer = [...state.messages].reverse().find((m) => m.getType() === 'ai' && messageText(m));
    let title = '';
    let usage = state.usage;
    if (!run.signal.aborted) {
      try {
        const res = await completeText(
          (await models()).title,
          [
            new SystemMessage(deps.prompts.get('title')),
            new HumanMessage(`User: ${question.slice(0, 2000)}\n\nAssistant: ${(answer ? messageText(answer) : '').slice(0, 1000)}`),
          ],
          AbortSignal.any([run.signal, AbortSignal.timeout(15_000)]),
        );
        title = messageText(res);
        usage = addUsage(usage, res);
      } catch (err) {
        deps.log.warn('title generation failed, using the first words of the message', { error: errorMessage(err) });
      }
    }
    deps.saveTitle(title.trim() ? title : fallbackTitle(question));
    return { usage };
  }

  const afterLlm = (state: AgentStateType): string => {
    const run = deps.run();
    if (state.stop) return 'limit';
    const ai = lastAi(state.messages);
    const wantsTools = (ai?.tool_calls?.length ?? 0) > 0;
    if (wantsTools) {
      if (state.final_pass || state.remaining_iterations <= 0 || elapsedOut(run)) return 'limit';
      return 'tools';
    }
    return deps.needsTitle() ? 'title' : END;
  };
  const afterTools = (state: AgentStateType): string => {
    if (state.stop || state.limit_reason || elapsedOut(deps.run())) return 'limit';
    return 'llm_call';
  };
  const afterLimit = (state: AgentStateType): string => {
    if (state.stop === 'aborted') return END;
    if (state.final_pass && !state.stop) return 'llm_call';
    return deps.needsTitle() ? 'title' : END;
  };

  return new StateGraph(AgentState)
    .addNode('llm_call', llmCall)
    .addNode('tools', toolsNode(deps))
    .addNode('limit', limitNode)
    .addNode('title', titleNode)
    .addEdge(START, 'llm_call')
    .addConditionalEdges('llm_call', afterLlm, ['tools', 'limit', 'title', END])
    .addConditionalEdges('tools', afterTools, ['llm_call', 'limit'])
    .addConditionalEdges('limit', afterLimit, ['llm_call', 'title', END])
    .addEdge('title', END)
    .compile({ checkpointer });
}

export type AgentGraph = ReturnType<typeof buildGraph>;

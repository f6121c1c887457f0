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
import { AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatOpenAICompletions } from '@langchain/openai';
import type { AgentEvent, StoppedReason, ToolStatus } from './events.js';
import type { Logger } from '../log.js';
import type { ToolContext } from '../tools/types.js';
import { AgentState, type AgentStateType, type AgentStateUpdate, type Usage } from './state.js';
import { logContext } from './context-log.js';
import { prepareContext, toolSchemaTokens, type ContextStrategy, type Summarizer } from './context.js';
import type { TokenCounter } from './tokens.js';
import { messageText } from './tokens.js';
import type { PromptLibrary } from './prompts.js';
import { executeTool, resultJson, type ToolRegistry, type ToolResult } from '../tools/registry.js';
import { assessCall, INVALID_ARGS_KEY, type GatePolicy } from '../tools/gate.js';
import { askApproval, type ApprovalContext } from '../tools/approval.js';
import { LIMIT_DEFAULTS, iterationLimitMessage, limitNote, toolRetries, pendingNotExecutedMessage } from './limits.js';
import { runLimited } from '../devices/runner.js';
import { runWithRetries } from '../tools/retry.js';
import { isAbortErrorStrict, withProviderRetry, type ProviderEndpoint } from './providers.js';
import { errorMessage } from '../errors.js';
import { fallbackTitle } from '../sessions/store.js';
import { redact } from '../security/redact.js';
import { boundToolArgs } from './input-limits.js';
import { IdleWatchdog } from './stream-guard.js';
import type { AgentNodeInfo } from './tree/node-info.js';
import type { CallBudget } from './tree/call-budget.js';

export interface ChatModels {
  chat: ChatOpenAICompletions;
  title: ChatOpenAICompletions;
  summary: ChatOpenAICompletions;
}

/** Per-request controls the session hands the graph. */
export interface RunControl {
  emit(e: AgentEvent): void;
  /** aborted by the user (reason 'aborted') or the time budget (reason 'max_time') */
  signal: AbortSignal;
  /** epoch ms when --max-time runs out */
  deadline?: number;
  /** tool calls blocked because approval was needed and not available/given */
  approvalBlocked: number;
  /** a sub-agent's frozen tool set, applied to the schema and at dispatch (absent: the mode's tools) */
  tools?: ReadonlySet<string>;
  /** a sub-agent run: the root's `agent` call its subtree hangs under */
  rootCallId?: string;
  /** a sub-agent run: its node in the task tree (absent for the root) */
  agent?: AgentNodeInfo;
  /** the tree budget (recursive): an LLM call is reserved before and booked after */
  budget?: CallBudget;
}

export interface GraphDeps {
  registry: ToolRegistry;
  prompts: PromptLibrary;
  counter: TokenCounter;
  context: { limitK: number; strategy: ContextStrategy; summarize: boolean };
  /** or a loader: @langchain/openai (~45 MB) then loads with the first LLM call, not while the TUI idles */
  models: ChatModels | (() => Promise<ChatModels>);
  endpoint: ProviderEndpoint;
  /** llm_idle_timeout_ms: a stream silent this long is aborted and retried */
  idleTimeoutMs?: number;
  log: Logger;
  approval: ApprovalContext;
  maxOutputChars: number;
  topologyText(signal: AbortSignal): Promise<string | undefined>;
  toolContext(signal: AbortSignal): ToolContext;
  needsTitle(): boolean;
  saveTitle(title: string): void;
  run(): RunControl;
}

export function stopReasonOf(signal: AbortSignal): StoppedReason {
  return signal.reason === 'max_time' ? 'max_time' : 'aborted';
}

function addUsage(u: Usage, m: { usage_metadata?: { input_tokens?: number; output_tokens?: number } } | undefined): Usage {
  const i = m?.usage_metadata?.input_tokens ?? 0;
  const o = m?.usage_metadata?.output_tokens ?? 0;
  return { input_tokens: u.input_tokens + i, output_tokens: u.output_tokens + o, total_tokens: u.total_tokens + i + o };
}

type ToolCall = { id: string; name: string; args: Record<string, unknown> };

function lastAi(messages: BaseMessage[]): AIMessage | undefined {
  const m = messages[messages.length - 1];
  return m && m.getType() === 'ai' ? (m as AIMessage) : undefined;
}

/** Tool calls of the last AI message that have no ToolMessage yet. */
export function danglingToolCalls(messages: BaseMessage[]): ToolCall[] {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.getType() === 'tool') continue;
    if (m.getType() !== 'ai') return [];
    const calls = ((m as AIMessage).tool_calls ?? []) as ToolCall[];
    const answered = new Set(messages.slice(i + 1).map((t) => (t as ToolMessage).tool_call_id));
    return calls.filter((c) => !answered.has(c.id));
  }
  return [];
}

export function toolMessage(call: { id: string; name: string }, r: ToolResult): ToolMessage {
  return new ToolMessage({
    content: redact(r.output),
    tool_call_id: call.id,
    name: call.name,
    status: r.status === 'success' ? 'success' : 'error',
    additional_kwargs: { copilot_status: r.status },
  });
}

/**
 * A whole completion via stream(): ChatOpenAICompletions.invoke() with streaming
 * enabled never resolved against an OpenAI-compatible server in our tests, while
 * stream() does; auxiliary calls (title, summary) therefore stream and concatenate.
 */
async function completeText(model: ChatOpenAICompletions, messages: BaseMessage[], signal: AbortSignal): Promise<AIMessageChunk> {
  let acc: AIMessageChunk | undefined;
  for await (const c of await model.stream(messages, { signal })) acc = acc ? acc.concat(c) : c;
  return acc ?? new AIMessageChunk({ content: '' });
}

/** Provider refusals that mean "prompt longer than the model's window". */
export function isContextOverflow(err: unknown): boolean {
  const inner = (err as { cause?: unknown }).cause ?? err;
  const e = inner as { name?: string; status?: number; code?: string; message?: string; error?: { code?: string } };
  // @langchain/openai already classifies it (ContextOverflowError); raw SDK errors carry the code
  if (e.name === 'ContextOverflowError') return true;
  if (e.code === 'context_length_exceeded' || e.error?.code === 'context_length_exceeded') return true;
  if (e.status !== 400 && e.status !== 413) return false;
  return /context.{0,20}(length|window)|maximum context|too many tokens|prompt is too long|reduce the length/i.test(e.message ?? '');
}

const elapsedOut = (run: RunControl) => run.deadline !== undefined && Date.now() >= run.deadline;

export function buildGraph(deps: GraphDeps, checkpointer: BaseCheckpointSaver) {
  const toolsTokensCache = new Map<string, number>();
  const models = (): Promise<ChatModels> => (typeof deps.models === 'function' ? deps.models() : Promise.resolve(deps.models));

  const summarizer: Summarizer = async (dropped, previous) => {
    const transcript = dropped
      .map((m) => `${m.getType().toUpperCase()}: ${messageText(m).slice(0, 4000)}`)
      .join('\n');
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
    const frozen = run.tools;
    const schemas = finalPass ? [] : deps.registry.schemas(state.mode).filter((t) => !frozen || frozen.has(t.function.name));
    const key = finalPass ? '-' : frozen ? `${state.mode}:${[...frozen].join(',')}` : state.mode;
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
      run.emit({ type: 'context', tokens: plan.tokens, tools_tokens: plan.toolsTokens, limit: plan.limit, percent: plan.percent, trimmed: plan.trimmed });
      logContext(deps.log, plan, { strategy: deps.context.strategy, limitK: deps.context.limitK, topology: topo, historyMessages: state.messages.length, finalPass: state.final_pass });
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
          onRetry: (attempt, err, delay) => deps.log.warn('LLM call failed, retrying', { attempt, delay_ms: Math.round(delay), error: errorMessage(err) }),
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
      const how: AgentStateUpdate = gate === 'final' ? { final_pass: true } : run.agent ? { stop: 'budget' } : calls.length ? { final_pass: true } : {};
      return { ...common, messages: [ai], usage: addUsage(state.usage, chunk), limit_reason: 'budget', ...how };
    }
    return { ...common, messages: [ai], usage: addUsage(state.usage, chunk) };
  }

  async function toolsNode(state: AgentStateType): Promise<AgentStateUpdate> {
    const run = deps.run();
    const calls = danglingToolCalls(state.messages);
    const results: (ToolResult | undefined)[] = new Array(calls.length);
    let count = state.tool_calls_count;
    const counts = { ...state.tool_counts };
    let limitHit: StoppedReason | null = null;
    const toRun: { i: number; call: ToolCall }[] = [];
    const ctx = deps.toolContext(run.signal);

    const policy: GatePolicy = { tools: deps.registry, approval: deps.approval, ...(run.tools ? { frozen: run.tools } : {}) };

    for (const [i, call] of calls.entries()) {
      const stopped = run.signal.aborted ? stopReasonOf(run.signal) : undefined;
      let verdict = assessCall(call, { mode: state.mode, limits: state.limits, count, counts, ...(stopped ? { stopped } : {}) }, policy);
      if (verdict.kind === 'ask') {
        run.emit({ type: 'approval', id: call.id, name: call.name, args: call.args });
        const answer = await askApproval(call, deps.approval, run.signal);
        verdict = answer.kind === 'allowed' ? { kind: 'run' } : { kind: 'blocked', status: 'blocked', reason: answer.reason, needsApproval: true };
      }
      if (verdict.kind === 'blocked') {
        if (verdict.needsApproval) run.approvalBlocked++;
        results[i] = { status: verdict.status, output: resultJson(verdict.status, verdict.reason) };
        continue;
      }
      if (verdict.kind === 'limit') {
        results[i] = { status: 'limit', output: resultJson('limit', verdict.reason) };
        limitHit ??= verdict.stop;
        continue;
      }
      count++;
      counts[call.name] = (counts[call.name] ?? 0) + 1;
      toRun.push({ i, call });
    }

    // Blocked/limited calls report immediately; allowed ones run in parallel, max_parallel_tools at a time.
    calls.forEach((c, i) => {
      const r = results[i];
      if (r) run.emit({ type: 'tool_end', id: c.id, name: c.name, status: r.status, duration_ms: 0, output: r.output });
    });
    await runLimited(
      toRun,
      state.limits.max_parallel_tools ?? LIMIT_DEFAULTS.max_parallel_tools,
      async ({ i, call }) => {
        const def = deps.registry.get(call.name)!;
        const t0 = performance.now();
        run.emit({ type: 'tool_start', id: call.id, name: call.name });
        const r = await runWithRetries(() => executeTool(def, call.args, { ...ctx, callId: call.id }, deps.maxOutputChars), {
          retries: toolRetries(state.limits),
          signal: run.signal,
          onRetry: (info) => {
            deps.log.warn('tool call failed transiently, retrying', { tool: call.name, ...info });
            run.emit({ type: 'tool_retry', id: call.id, name: call.name, ...info });
          },
        });
        results[i] = r;
        if (r.status === 'error') deps.log.error('tool call failed', { tool: call.name, id: call.id, output: r.output.slice(0, 300) });
        run.emit({ type: 'tool_end', id: call.id, name: call.name, status: r.status, duration_ms: Math.round(performance.now() - t0), output: r.output });
      },
    );
    const update: AgentStateUpdate = {
      messages: calls.map((c, i) => toolMessage(c, results[i]!)),
      tool_calls_count: count,
      tool_counts: counts,
    };
    if (limitHit) {
      update.limit_reason = limitHit;
      deps.log.warn('Tool call limit exceeded', { reason: limitHit, tool_calls: count, tool_counts: counts, refused: results.filter((r) => r?.status === 'limit').length });
    }
    if (run.signal.aborted) update.stop = stopReasonOf(run.signal);
    return update;
  }

  /** Handles a reached limit or an abort: answers pending calls, applies on_limit. */
  async function limitNode(state: AgentStateType): Promise<AgentStateUpdate> {
    const run = deps.run();
    let reason: StoppedReason =
      state.stop ?? state.limit_reason ?? (elapsedOut(run) ? 'max_time' : state.remaining_iterations <= 0 ? 'max_iterations' : 'done');
    if (state.final_pass && !state.stop) reason = state.limit_reason ?? reason;
    const status: ToolStatus = reason === 'aborted' || reason === 'max_time' ? 'aborted' : 'limit';
    const pending = danglingToolCalls(state.messages).map((c) => {
      const why = reason === 'max_iterations' ? iterationLimitMessage(state.llm_calls, state.limits.max_iterations, c.name) : pendingNotExecutedMessage(reason);
      const r: ToolResult = { status, output: resultJson(status, why) };
      run.emit({ type: 'tool_end', id: c.id, name: c.name, status, duration_ms: 0, output: r.output });
      return toolMessage(c, r);
    });
    if (reason === 'aborted') return { messages: pending, stop: 'aborted' };
    if (!state.final_pass) deps.log.warn('limit reached', { reason, on_limit: state.limits.on_limit, llm_calls: state.llm_calls, tool_calls: state.tool_calls_count });
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
          [new SystemMessage(deps.prompts.get('title')), new HumanMessage(`User: ${question.slice(0, 2000)}\n\nAssistant: ${(answer ? messageText(answer) : '').slice(0, 1000)}`)],
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
    .addNode('tools', toolsNode)
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

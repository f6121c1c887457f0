/**
 * --estimate: the first LLM call of a request, prepared exactly as a run prepares it
 * (system prompt with the current topology, the tool schemas the root is offered, the
 * session's history plus the prompt, trimmed to the context budget) and counted, with
 * the worst case the request could cost under its effective limits. Nothing is sent to
 * the model and no tool runs; history that would be summarized is counted as dropped
 * (summarizing is an LLM call).
 */
import { HumanMessage, type BaseMessage } from '@langchain/core/messages';
import type { CopilotMode } from '../../core/modes.js';
import type { RequestLimits } from '../../core/api.js';
import { ROOT_AGENT } from '../../core/caller.js';
import type { ToolRegistry } from '../../tools/registry.js';
import type { AgentGraph } from '../graph.js';
import type { AgentStateType } from '../state.js';
import type { InjectedTopology } from '../graph-deps.js';
import type { TokenCounter } from '../tokens.js';
import type { ModelPrice } from '../../core/pricing.js';
import { PromptLibrary } from '../prompts.js';
import { prepareContext, STRATEGY_RATIO, toolSchemaTokens, type ContextStrategy } from '../context.js';
import { enforcedLimits } from '../limits.js';
import { maskOldResults } from '../history-mask.js';
import { roundUsd } from '../../core/pricing.js';
import { worstCaseUsd } from '../cost-limit.js';

export interface RequestEstimate {
  model: string;
  mode: CopilotMode;
  messages: { history: number; sent: number; trimmed: number };
  topology: { injected: boolean; nodes: string[] };
  tools: number;
  tokens: { prompt: number; tools: number; total: number; context_limit: number; percent: number };
  /** USD per 1M tokens; null when the model has no price */
  price: ModelPrice | null;
  /** output tokens a call may produce: max_tokens, the --max-cost cap, or the rest of the context window */
  output_cap: number;
  /** the first call at most: its prepared input and the whole output cap */
  first_call_usd: number | null;
  /** max_iterations calls, each filling the context budget and the output cap; at most --max-cost */
  worst_case_usd: number | null;
  max_iterations: number;
  /** the input tokens a call may fill (context_limit × strategy ratio) */
  context_budget: number;
  max_cost_usd: number | null;
}

export interface EstimateDeps {
  sessionId: string;
  model: string;
  graph: AgentGraph;
  registry: ToolRegistry;
  counter: TokenCounter;
  /** fullTurns: history_full_turns (older long tool results counted as the stubs a call sends) */
  context: { limitK: number; strategy: ContextStrategy; fullTurns?: number };
  topology(signal: AbortSignal): Promise<InjectedTopology | undefined>;
  mode: CopilotMode;
  limits: RequestLimits;
  price: ModelPrice | undefined;
  /** max_tokens, or the --max-cost cap; undefined: the model's output is not capped */
  maxOutputTokens: number | undefined;
}

export async function estimateRequest(prompt: string, d: EstimateDeps, signal: AbortSignal): Promise<RequestEstimate> {
  await d.counter.ready();
  const snap = await d.graph.getState({ configurable: { thread_id: d.sessionId } });
  const values = snap.values as Partial<AgentStateType> | undefined;
  const history: BaseMessage[] = [...(values?.messages ?? []), new HumanMessage(prompt)];
  const topo = await d.topology(signal);
  const schemas = d.registry.schemas(d.mode, ROOT_AGENT);
  const toolsTokens = toolSchemaTokens(d.counter, schemas);
  const plan = await prepareContext(
    { system: new PromptLibrary().system(d.mode, topo?.text), history, summary: values?.summary ?? null, toolsTokens },
    {
      limitK: d.context.limitK,
      strategy: d.context.strategy,
      counter: d.counter,
      // the stubs the call would send, counted: nothing is stored (a ref is stored by the call that sends it)
      mask: (h) => maskOldResults(h, { fullTurns: d.context.fullTurns ?? 0, counter: d.counter, store: (ref) => ref.id, cache: false }),
    },
  );
  const limit = plan.limit;
  const contextBudget = Math.floor(limit * STRATEGY_RATIO[d.context.strategy]);
  const outputCap = d.maxOutputTokens ?? Math.max(0, limit - contextBudget);
  const iterations = enforcedLimits(d.limits).max_iterations;
  const first = d.price ? worstCaseUsd(d.price, plan.tokens + toolsTokens, outputCap) : undefined;
  let worst = d.price ? iterations * worstCaseUsd(d.price, contextBudget, outputCap) : undefined;
  if (worst !== undefined && d.limits.max_cost !== undefined) worst = Math.min(worst, d.limits.max_cost);
  return {
    model: d.model,
    mode: d.mode,
    messages: { history: history.length, sent: plan.messages.length, trimmed: plan.trimmed },
    topology: { injected: topo !== undefined, nodes: topo?.nodes ?? [] },
    tools: schemas.length,
    tokens: { prompt: plan.tokens, tools: toolsTokens, total: plan.tokens + toolsTokens, context_limit: limit, percent: plan.percent },
    price: d.price ?? null,
    output_cap: outputCap,
    first_call_usd: roundUsd(first),
    worst_case_usd: roundUsd(worst),
    max_iterations: iterations,
    context_budget: contextBudget,
    max_cost_usd: d.limits.max_cost ?? null,
  };
}

/** The text form (stdout). */
export function estimateText(e: RequestEstimate): string {
  const usd = (v: number | null) => (v === null ? 'unknown (the model has no price: model_prices)' : `$${v.toFixed(4)}`);
  const lines = [
    `estimate for the first LLM call of this request (nothing sent, no tool run) · ${e.model}`,
    `  messages    ${e.messages.history} in the history → ${e.messages.sent} sent (${e.messages.trimmed} trimmed)`,
    `  topology    ${e.topology.injected ? `${e.topology.nodes.join(', ') || 'no nodes'} (${e.topology.nodes.length} nodes)` : 'none injected'}`,
    `  tokens      ${e.tokens.prompt} prompt + ${e.tokens.tools} tool schemas (${e.tools} tools) = ${e.tokens.total} of ${e.tokens.context_limit} (${e.tokens.percent}%)`,
    `  first call  at most ${usd(e.first_call_usd)} (${e.tokens.total} in + ${e.output_cap} out)`,
    `  worst case  at most ${usd(e.worst_case_usd)} (${e.max_iterations} iterations × ${e.context_budget} in + ${e.output_cap} out${
      e.max_cost_usd !== null ? `, capped by --max-cost $${e.max_cost_usd}` : ''
    }; per agent loop: sub-agents add theirs unless --max-cost caps the request)`,
  ];
  return lines.join('\n') + '\n';
}

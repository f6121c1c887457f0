/**
 * What the agent graph (./graph.ts) is built from: the models and the services of the
 * session; and the RunControl each run (the root's request, every sub-agent) hands the
 * graph in LangGraph's `config.configurable.run`, which every node reads with `runOf`.
 */
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import type { ChatOpenAICompletions } from '@langchain/openai';
import type { BaseMessage } from '@langchain/core/messages';
import type { ValidationResult } from './tree/validation-result.js';
import type { AgentEvent, StoppedReason } from '../core/events.js';
import type { Caller } from '../core/caller.js';
import type { Checkpointer } from '../checkpoints/batch.js';
import type { ApprovalPreviewer } from '../checkpoints/preview.js';
import type { Logger } from '../log.js';
import type { ToolContext } from '../tools/types.js';
import type { ContextStrategy } from './context.js';
import type { ResultStore } from './result-cut.js';
import type { TokenCounter } from './tokens.js';
import type { PromptLibrary } from './prompts.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { ApprovalContext } from '../tools/approval.js';
import type { ProviderEndpoint } from './providers.js';
import type { AgentNodeInfo } from './tree/node-info.js';
import type { CallBudget } from './tree/call-budget.js';
import type { RequestCounters } from './request-counters.js';
import type { ModelPrice } from '../core/pricing.js';
import type { LimitRaiser } from './limit-raise.js';

/** The topology text the system prompt gets, and the names of its nodes. */
export interface InjectedTopology {
  text: string;
  nodes: string[];
  /** what the user should be told about where it came from (the notification stream fell back to REST), each once */
  notices?: string[];
}

export interface ChatModels {
  chat: ChatOpenAICompletions;
  title: ChatOpenAICompletions;
  summary: ChatOpenAICompletions;
  /** the recursive tree's Validator (src/agent/tree/validator.ts) */
  validator: ChatOpenAICompletions;
  /** the recursive root's Validator of its candidate answer (src/agent/tree/root-validator.ts) */
  rootValidator: ChatOpenAICompletions;
}

/** Per-request controls the session hands the graph. */
export interface RunControl {
  emit(e: AgentEvent): void;
  /** aborted by the user (reason 'aborted') or the time budget (reason 'max_time') */
  signal: AbortSignal;
  /** epoch ms when --max-time runs out */
  deadline?: number;
  /** the request's counts, shared by the root and every sub-agent (the limits count these) */
  counters: RequestCounters;
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
  /** recursive trees: the children whose validated report awaits this run's review (the review gate) */
  pendingReviews?: () => readonly string[];
  /** who this run calls tools as (absent: derived by runCaller from `agent` and `tools`) */
  caller?: Caller;
  /**
   * Recursive trees, the root's run: the root Validator's verdict on a candidate final answer
   * (undefined: nothing to validate — the request delegated nothing)
   */
  validateAnswer?(a: RootAnswer): Promise<ValidationResult | undefined>;
}

/** A candidate final answer of the root, for its Validator. */
export interface RootAnswer {
  /** the root's history with the answer last */
  messages: BaseMessage[];
  answer: string;
  run: RunControl;
  /** no validation can run: say so (`budget`: the tree budget ended the tree, its reserved call went to the answer) */
  skipped?: 'budget';
}

export interface GraphDeps {
  registry: ToolRegistry;
  prompts: PromptLibrary;
  counter: TokenCounter;
  /** fullTurns: history_full_turns, the last model turns whose tool results are sent whole (older long ones as stubs; 0 = all whole) */
  context: { limitK: number; strategy: ContextStrategy; summarize: boolean; fullTurns?: number };
  /** or a loader: @langchain/openai (~45 MB) then loads with the first LLM call, not while the TUI idles */
  models: ChatModels | (() => Promise<ChatModels>);
  endpoint: ProviderEndpoint;
  /** the chat model's price (absent: unknown) and its output cap, for --max-cost's worst case */
  cost: { price?: ModelPrice; maxOutputTokens: number };
  /** asks the user to raise a reached limit (the TUI); absent: on_limit decides */
  limitRaiser?: LimitRaiser;
  /** llm_idle_timeout_ms: a stream silent this long is aborted and retried */
  idleTimeoutMs?: number;
  log: Logger;
  approval: ApprovalContext;
  /** characters of one result before it is cut (with `results`: STORED_RESULT_CHARS, the token cut decides) */
  maxOutputChars: number;
  /** cuts results to `tool_result_tokens` and stores them whole (./result-cut.ts); absent: the characters cap only */
  results?: ResultStore;
  /** the topology injected into the system prompt (undefined: no project) */
  topology(signal: AbortSignal): Promise<InjectedTopology | undefined>;
  toolContext(signal: AbortSignal): ToolContext;
  /** takes the checkpoints of each approved batch before it runs (src/checkpoints/batch.ts) */
  checkpoints?: Checkpointer;
  /** reads the devices a config call changes to preview its diff in the approval prompt (src/checkpoints/preview.ts) */
  previewer?: ApprovalPreviewer;
  /** root_validation_rounds: how many times a failed answer goes back to the root */
  rootValidationRounds?: number;
  /** the session has no title yet (asked when the root's request ends) */
  needsTitle(): boolean;
  saveTitle(title: string): void;
}

/** The session's chat models (built with the first LLM call when they come as a loader). */
export function chatModels(deps: Pick<GraphDeps, 'models'>): Promise<ChatModels> {
  return typeof deps.models === 'function' ? deps.models() : Promise.resolve(deps.models);
}

/** The run a graph invocation belongs to: `config.configurable.run`, set by whoever streams the graph. */
export function runOf(config: LangGraphRunnableConfig | undefined): RunControl {
  const run = (config?.configurable as { run?: RunControl } | undefined)?.run;
  if (!run) throw new Error('graph used outside a request: no run in config.configurable');
  return run;
}

/** The LangGraph config of one run on a thread (the root's session id, a sub-agent's id). */
export function runConfig(threadId: string, run: RunControl, recursionLimit: number) {
  return { configurable: { thread_id: threadId, run }, recursionLimit };
}

/** The caller a run's tool calls are judged as: the root agent, or a sub-agent with its frozen tool set; with the reports awaiting its review. */
export function runCaller(run: RunControl): Caller {
  if (run.caller) return run.caller;
  const pending = run.pendingReviews?.() ?? [];
  return {
    kind: 'agent',
    depth: run.agent?.depth ?? 0,
    ...(run.agent ? { agentId: run.agent.id } : {}),
    ...(run.tools ? { tools: run.tools } : {}),
    ...(pending.length ? { pendingReviews: pending } : {}),
  };
}

export function stopReasonOf(signal: AbortSignal): Extract<StoppedReason, 'aborted' | 'max_time'> {
  return signal.reason === 'max_time' ? 'max_time' : 'aborted';
}

/** --max-time ran out (the signal may not have fired yet). */
export const elapsedOut = (run: RunControl) => run.deadline !== undefined && Date.now() >= run.deadline;

/**
 * The parts of a session, each built from the ones before it: the graph over the registry
 * (checkpointed in the store), the sub-agent tree over the graph and the registry (its
 * Validators with their hosts), then the tools from outside the core. Nothing here refers
 * forward: a run reaches the graph's nodes through `config.configurable.run`.
 */
import type { Settings } from '../../config/schema.js';
import type { LimitAsker } from '../../core/api.js';
import { ROOT_AGENT } from '../../core/caller.js';
import type { Logger } from '../../log.js';
import { errorMessage } from '../../errors.js';
import type { ApprovalContext } from '../../tools/approval.js';
import type { ApprovePolicy } from '../../tools/gate.js';
import type { ToolRegistry } from '../../tools/registry.js';
import type { ToolContext } from '../../tools/types.js';
import type { SessionStore } from '../../sessions/store.js';
import { sessionCheckpointer } from '../../checkpoints/batch.js';
import { baselinePreviewer } from '../../tools/changeset/baseline-previewer.js';
import { CheckpointStore } from '../../checkpoints/store.js';
import { FaultStore } from '../../faults/store.js';
import { StateBaselineStore } from '../../sessions/state-baselines.js';
import { redact } from '../../security/redact.js';
import { sanitizeLine } from '../../security/sanitize.js';
import { buildGraph, type AgentGraph } from '../graph.js';
import { runToolCalls, type ToolRunDeps } from '../tools-node.js';
import type { LimitRaiser } from '../limit-raise.js';
import { PromptLibrary } from '../prompts.js';
import { SessionTree } from '../tree/session-tree.js';
import type { ValidatorHost } from '../tree/validator.js';
import type { RootValidatorHost } from '../tree/root-validator.js';
import type { SessionProject } from './project.js';
import type { LiveState } from './live.js';
import type { Resumed } from './resume.js';
import { approverInTurn, type QuestionTurn } from './questions.js';
import { SessionAllowances } from '../../tools/allowances.js';
import { chatCost, type ResolvedProvider } from './provider.js';
import type { TreeStore } from '../../sessions/tree-store.js';
import { pageFitter, STORED_RESULT_CHARS, type ResultStore } from '../result-cut.js';
import type { CreateAgentSessionOptions, ToolAttacher } from './types.js';

/** What the parts of one session share. */
export interface SessionParts {
  sessionId: string;
  settings: Settings;
  log: Logger;
  provider: ResolvedProvider;
  store: SessionStore;
  project: SessionProject;
  registry: ToolRegistry;
  /** per-session services the tools share (console pools, MCP clients), closed with the session */
  services: Map<string, unknown>;
  live: LiveState;
}

/** How the session runs tool calls (the gate's registry and approvals, checkpoints, previews): the agents' and the Validators'. */
export function sessionToolRunner(
  p: SessionParts,
  approval: ApprovalContext,
  limitRaiser: LimitRaiser | undefined,
  trees: TreeStore,
): ToolRunDeps {
  const { settings, log, registry, services, project, store, sessionId } = p;
  const checkpointStore = new CheckpointStore(store.db);
  const faults = { sessionId, store: new FaultStore(store.db) };
  const baselines = new StateBaselineStore(store.db);
  const recordBaseline: ToolContext['recordBaseline'] = (states, callId) =>
    baselines.save(sessionId, checkpointStore.currentRequestNo(sessionId), callId, states);
  const toolContext = (signal: AbortSignal): ToolContext => ({ settings, signal, log, project: () => project.open(), services });
  return {
    registry,
    approval,
    ...(limitRaiser ? { limitRaiser } : {}),
    log,
    // long results are stored whole and enter the history cut to tool_result_tokens
    maxOutputChars: STORED_RESULT_CHARS,
    results: resultStore(p, trees),
    toolContext: (signal) => ({ ...toolContext(signal), faults, recordBaseline }),
    checkpoints: sessionCheckpointer({
      store: checkpointStore,
      sessionId,
      requestNo: () => checkpointStore.currentRequestNo(sessionId),
      context: toolContext,
    }),
    previewer: baselinePreviewer(toolContext),
  };
}

/** The session's cut tool results, stored whole as context refs of its tree, held by the agent that ran the call. */
function resultStore(p: SessionParts, trees: TreeStore): ResultStore {
  return {
    limit: p.settings.tool_result_tokens,
    counter: p.provider.counter,
    store(holder, ref) {
      const id = trees.storeRef(p.sessionId, ref);
      trees.grantRef(p.sessionId, holder ?? p.sessionId, id);
      return id;
    },
  };
}

/** The LangGraph graph over the registry, checkpointed in the store. */
export function sessionGraph(p: SessionParts, tools: ToolRunDeps): AgentGraph {
  const { provider, settings, project, store, sessionId } = p;
  const { limitK } = provider;
  return buildGraph(
    {
      ...tools,
      prompts: new PromptLibrary(),
      counter: provider.counter,
      context: {
        limitK,
        strategy: settings.context_strategy,
        summarize: settings.context_summarize,
        fullTurns: settings.history_full_turns,
      },
      models: provider.models,
      endpoint: provider.endpoint,
      cost: chatCost(provider.endpoint.model, settings),
      idleTimeoutMs: settings.llm_idle_timeout_ms,
      topology: (signal) => project.topology(signal),
      rootValidationRounds: settings.root_validation_rounds,
      needsTitle: () => !store.get(sessionId)?.title,
      saveTitle: (t) => store.setTitle(sessionId, sanitizeLine(redact(t))),
    },
    store.saver,
  );
}

/** The sub-agent tree under the agent mode fixed for this session; its own tools join the registry. */
export function sessionTree(p: SessionParts, resume: Resumed, graph: AgentGraph, tools: ToolRunDeps): SessionTree {
  const { fixation, trees, agentMode } = resume;
  const tree = new SessionTree({
    mode: agentMode,
    ...(fixation.budget ? { budget: fixation.budget } : {}),
    trees,
    registry: p.registry,
    graph,
    validator: validatorHost(p, tools),
    rootValidator: rootValidatorHost(p.provider),
    rootId: p.sessionId,
    session: p.live,
    schedule: p.settings,
    model: p.provider.endpoint.model,
    modelPrices: p.settings.model_prices,
    readPage: pageFitter(p.provider.counter, p.settings.tool_result_tokens),
  });
  p.registry.add(tree.tools);
  resume.notices.push(...tree.notices);
  return tree;
}

/** What the recursive tree's Validator runs with: its model and prompt, the registry's read-only tools, the session's dispatch. */
function validatorHost(p: SessionParts, tools: ToolRunDeps): ValidatorHost {
  const { settings, registry, project, live } = p;
  const prompts = new PromptLibrary();
  const models = p.provider.models;
  return {
    model: async () => (typeof models === 'function' ? await models() : models).validator,
    prompt: () => prompts.get('validator'),
    visible: (childTools) => registry.visible(live.mode, { kind: 'validator', depth: 0, tools: new Set(childTools) }).map((t) => t.name),
    tool: (name) => registry.get(name),
    schema: (name) => registry.schemas(live.mode, ROOT_AGENT).find((s) => s.function.name === name),
    // under the limits of the request (the session's, with the raises its runs got)
    runTools: (calls, run, caller) =>
      runToolCalls(tools, run, calls, { caller, mode: live.mode, limits: { ...live.limits, ...run.counters.raised }, exceeded: [] }),
    maxToolCalls: settings.validator_tool_calls,
    projectNodes: async (signal) => (await project.topology(signal))?.nodes,
  };
}

/** What the recursive root's Validator runs with: its own model and prompt (no tools). */
function rootValidatorHost(provider: ResolvedProvider): RootValidatorHost {
  const prompts = new PromptLibrary();
  const models = provider.models;
  return {
    model: async () => (typeof models === 'function' ? await models() : models).rootValidator,
    prompt: () => prompts.get('root_validator'),
  };
}

export interface AttachedTools {
  /** the tools from outside the core, attaching in the background */
  ready: Promise<{ notices: string[] } | undefined> | undefined;
  /** servers of `ready` still connecting (a request names them while it waits) */
  connecting: ReadonlySet<string>;
}

/** The tools handed in from outside the core (the user's MCP servers), attached in the background. */
export function attachTools(p: SessionParts, attach: ToolAttacher | undefined): AttachedTools {
  const { registry, settings, log, services } = p;
  // started in the background, so a TUI does not wait for the user's MCP servers; a request waits before the model is shown their tools
  const connecting = new Set<string>();
  const ready = attach?.({ registry, settings, log, services, connecting }).catch((err: unknown) => {
    log.warn('MCP servers could not be started', { error: errorMessage(err) });
    connecting.clear();
    return undefined;
  });
  return { ready, connecting };
}

export function approvalContext(settings: Settings, opts: CreateAgentSessionOptions, questions: QuestionTurn): ApprovalContext {
  const policy: ApprovePolicy = settings.approve ?? (opts.approver ? 'ask' : 'never');
  return {
    policy,
    approvalTools: settings.approval_tools,
    allowances: new SessionAllowances(),
    interactive: opts.invocation?.interactive ?? opts.approver !== undefined,
    canAsk: opts.approver !== undefined,
    ...(opts.approver ? { approver: approverInTurn(opts.approver, questions) } : {}),
  };
}

/** The user's answers to reached limits, asked in turn with approvals; a raise "for this session" is kept in the session's limits. */
export function limitRaiser(ask: LimitAsker, live: LiveState, turn: QuestionTurn): LimitRaiser {
  return {
    turn,
    ask,
    keep: (patch) => {
      live.limits = { ...live.limits, ...patch, tool_limits: { ...(patch.tool_limits ?? live.limits.tool_limits) } };
    },
  };
}

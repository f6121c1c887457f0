/**
 * createAgentSession: composes settings, provider, GNS3 project, tools, the graph
 * and the SQLite store into an AgentSession whose send() yields the typed event
 * stream (docs/ARCHITECTURE.md, One request, event by event). One request runs at a time per session.
 * It reads as its steps: resolve the provider, open the store (and the session it resumes),
 * fix the modes and the sub-agent tree, attach the tools, build the graph, then wrap them in
 * the AgentSession the front ends use. The jobs live in ./session/: resume.ts (which row,
 * which modes), project.ts (the GNS3 project scope), run.ts (one request), models.ts (the
 * lazily built chat models).
 */
import type { Settings, InvocationOptions } from '../config/schema.js';
import type { AgentSession, Approver, LimitAsker, RequestLimits, StopOutcome } from '../core/api.js';
import type { AgentEvent, AgentMode } from '../core/events.js';
import type { CopilotMode } from '../core/modes.js';
import type { ToolContext, ToolDef } from '../tools/types.js';
import type { ProjectScope } from '../gns3/types.js';
import { createLogger, type Logger } from '../log.js';
import { ProviderError, UsageError, errorMessage } from '../errors.js';
import { assertNoRemovedAgentFlags } from '../core/agent-mode.js';
import { SessionTree } from './tree/session-tree.js';
import type { ValidatorHost } from './tree/validator.js';
import type { RootValidatorHost } from './tree/root-validator.js';
import { ROOT_AGENT } from '../core/caller.js';
import type { TreeUsage } from './tree/ledger.js';
import { agentViews, budgetLine, parseJson, renderTree, resourceUsage, type AgentView, type ResourceUsage } from './tree/view.js';
import type { ValidationResult } from './tree/validation-result.js';
import type { AgentNodeRow, TreeRow } from '../sessions/tree-store.js';
import { runningAgent, watchStopRequests } from './tree/stop-requests.js';
import {
  encodingForModel,
  KEYLESS_PROVIDERS,
  resolveApiKey,
  resolveContextLimitK,
  resolveProviderEndpoint,
  type ProviderEndpoint,
} from './providers.js';
import { limitsFromSettings } from './limits.js';
import { COST_OUTPUT_CAP, priceForCostLimit } from './cost-limit.js';
import { priceOf } from './pricing.js';
import { PromptLibrary } from './prompts.js';
import { TokenCounter } from './tokens.js';
import { IdleCollector } from './idle-gc.js';
import { buildGraph, type AgentGraph } from './graph.js';
import type { ChatModels, RunControl } from './graph-deps.js';
import { DEFAULT_MAX_OUTPUT_CHARS, ToolRegistry } from '../tools/registry.js';
import type { ApprovalContext } from '../tools/approval.js';
import type { ApprovePolicy } from '../tools/gate.js';
import { closeServices } from '../tools/services.js';
import { SessionStore, type SessionRow } from '../sessions/store.js';
import type { TranscriptEntry } from '../sessions/transcript.js';
import { SessionLease } from '../sessions/lease.js';
import { assertUnlocked } from '../config/locks.js';
import { RedactingEventQueue } from '../security/events.js';
import { redact } from '../security/redact.js';
import { sanitizeLine } from '../security/sanitize.js';
import { checkPromptSize } from './input-limits.js';
import { resumeSession, type Resumed } from './session/resume.js';
import { sessionProject, type SessionProject } from './session/project.js';
import { HistoryRepair, runRequest, type RequestHost } from './session/run.js';
import { lazyChatModels } from './session/models.js';
import { estimateRequest, type RequestEstimate } from './session/estimate.js';
import type { LimitRaiser } from './limit-raise.js';
import { approverInTurn, questionQueue, type QuestionTurn } from './session/questions.js';
import { sessionCheckpointer } from '../checkpoints/batch.js';
import { capturePreviewer } from '../checkpoints/preview.js';
import { FaultStore } from '../faults/store.js';
import { CheckpointStore } from '../checkpoints/store.js';

/**
 * Adds tools that live outside the core (the user's MCP servers) to a session's registry.
 * The composition root above the agent hands it in, so the core does not reach up into a
 * client. It runs in the background; a request waits for it before the model sees the tools.
 * Whatever it registers in `services` is closed with the session. Its notices go out with
 * the request.
 */
export type ToolAttacher = (target: {
  registry: ToolRegistry;
  settings: Settings;
  log: Logger;
  services: Map<string, unknown>;
  /** names of the servers still connecting: the attacher adds each at start and deletes it once it is up or failed */
  connecting: Set<string>;
}) => Promise<{ notices: string[] } | undefined>;

export interface CreateAgentSessionOptions {
  settings: Settings;
  invocation?: InvocationOptions;
  approver?: Approver;
  sessionId?: string;
  continueLatest?: boolean;
  log?: Logger;
  /**
   * settings.project was asked for explicitly (--project, the TUI's project picker):
   * it wins over a resumed session's own project. Settings cannot tell a typed flag
   * from GNS3_PROJECT or a config file, so callers that know say so here.
   */
  projectExplicit?: boolean;
  /** branch the resumed session into a new id (--fork) */
  fork?: boolean;
  /** asks the user to raise a limit the running request reached (the TUI); absent: on_limit decides */
  limitAsker?: LimitAsker;
  /** tools from outside the core (src/commands/agent-session.ts hands in the MCP servers') */
  attachTools?: ToolAttacher;
  /** test seams (compatible extensions of the contract) */
  tools?: ToolDef[];
  projectScope?: () => Promise<ProjectScope>;
  env?: NodeJS.ProcessEnv;
}

export interface AgentSessionExt extends AgentSession {
  readonly agentMode: AgentMode;
  readonly resumed: boolean;
  readonly model: string;
  /** the session row (title, usage) as stored now */
  info(): SessionRow | undefined;
  /** the checkpointed conversation, e.g. to redraw a resumed session in the TUI */
  transcript(): Promise<TranscriptEntry[]>;
  /** one-line notices for the user (a classroom lock changed the mode, an AGENT_MODE in the environment was ignored) */
  readonly notices: readonly string[];
  /** the sub-agent tree: the root's record and every child */
  tree(): { root: TreeRow | undefined; agents: AgentNodeRow[] };
  /** the tree for --json (`agents`, `resource_usage`), `/tree` and the status bar */
  treeView(): { agents: AgentView[]; resource_usage: ResourceUsage | null };
  /** the tree budget's usage (recursive trees) */
  usage(): TreeUsage | undefined;
  stopAgent(agentId: string): StopOutcome;
  /** --estimate: the first LLM call of `prompt` prepared and counted, nothing sent, no tool run */
  estimate(prompt: string, signal?: AbortSignal): Promise<RequestEstimate>;
}

export async function createAgentSession(opts: CreateAgentSessionOptions): Promise<AgentSessionExt> {
  const env = opts.env ?? process.env;
  const log = opts.log ?? createLogger(opts.settings.log_level);
  assertNoRemovedAgentFlags(env);
  // a cost limit needs a price to hold the worst case against (refused before anything else is looked up)
  if (opts.settings.max_cost !== undefined) priceForCostLimit(resolveProviderEndpoint(opts.settings).model, opts.settings.model_prices);
  const provider = await resolveProvider(opts.settings);
  const baseTools = await loadTools(opts.tools);
  const { store, resume } = await openStore(opts, provider.counter, env, log);
  const sessionId = resume.row?.id ?? (await import('node:crypto')).randomUUID();
  const live = liveState(resume);
  const { settings } = resume;
  // the tree and the registry refer to each other and to the graph; each is read only once a request runs
  const late = {} as { registry: ToolRegistry; graph: AgentGraph; validator: ValidatorHost; rootValidator: RootValidatorHost };
  const tree = fixModeAndTree(resume, provider.endpoint, sessionId, live, late);
  const tools = attachTools(baseTools, tree, settings, log, opts.attachTools);
  late.registry = tools.registry;
  const project = sessionProject(settings, log, opts.projectScope);
  late.validator = validatorHost(provider, settings, log, tools, project, live);
  late.rootValidator = rootValidatorHost(provider);
  const questions = questionQueue();
  late.graph = buildSessionGraph({
    provider,
    settings,
    log,
    approval: approvalContext(settings, opts, questions),
    registry: tools.registry,
    services: tools.services,
    project,
    store,
    tree,
    sessionId,
    ...(opts.limitAsker ? { limitRaiser: limitRaiser(opts.limitAsker, live, questions) } : {}),
  });
  const host = requestHost({ sessionId, resume, provider, opts, log, store, graph: late.graph, project, tools, tree, live });
  return sessionFacade({ sessionId, resume, provider, store, tree, host, live, project, tools });
}

/** What a session changes while it lives: the modes and limits the user sets, the lease once the row exists. */
interface LiveState {
  mode: CopilotMode;
  limits: RequestLimits;
  lease: SessionLease | undefined;
  rowCreated: boolean;
  /** the root run while a request runs */
  current: RunControl | undefined;
}

function liveState(resume: Resumed): LiveState {
  return {
    mode: resume.mode,
    limits: limitsFromSettings(resume.settings),
    lease: resume.lease,
    rowCreated: resume.row !== undefined,
    current: undefined,
  };
}

async function loadTools(override?: ToolDef[]): Promise<ToolDef[]> {
  if (override) return override;
  const { allTools } = await import('../tools/index.js');
  return allTools();
}

interface ResolvedProvider {
  endpoint: ProviderEndpoint;
  limitK: number;
  models: ChatModels | (() => Promise<ChatModels>);
  counter: TokenCounter;
}

/** Step 1: the model endpoint, its context size and API key (refused without one where a key is needed). */
async function resolveProvider(settings: Settings): Promise<ResolvedProvider> {
  const endpoint = resolveProviderEndpoint(settings);
  const limitK = resolveContextLimitK(settings);
  const apiKey = await resolveApiKey(settings.provider);
  if (!apiKey && !KEYLESS_PROVIDERS.has(settings.provider) && settings.provider !== 'custom')
    throw new ProviderError(
      `No LLM API key for provider "${settings.provider}": run \`gns3-copilot auth login\` or set GNS3_COPILOT_API_KEY (or OPENAI_API_KEY)`,
    );
  const models = lazyChatModels(endpoint, apiKey, settings);
  // built on the first LLM call: an idle TUI session does not hold the BPE ranks
  const counter = TokenCounter.lazy(encodingForModel(endpoint.model));
  return { endpoint, limitK, models, counter };
}

const forkedInvocations = new WeakSet<object>();

/** Step 2: the SQLite store and the session row it resumes (-r, -c, --fork), under its lease. */
async function openStore(
  opts: CreateAgentSessionOptions,
  counter: TokenCounter,
  env: NodeJS.ProcessEnv,
  log: Logger,
): Promise<{ store: SessionStore; resume: Resumed }> {
  const store = await SessionStore.open(opts.settings.data_dir);
  // token counts are stored with each message, so a resumed session does not re-count its history
  store.saver.tokens = counter;
  // --fork applies to the session the command line names, once (the TUI reuses its invocation for /new, /resume)
  const fork = opts.fork ?? (opts.invocation?.fork === true && !forkedInvocations.has(opts.invocation));
  if (opts.invocation) forkedInvocations.add(opts.invocation);
  const resume = resumeSession(
    store,
    {
      sessionId: opts.sessionId ?? opts.invocation?.resumeId,
      continueLatest: opts.continueLatest ?? opts.invocation?.continueLatest,
      fork,
      projectExplicit: opts.projectExplicit ?? opts.invocation?.projectExplicit ?? false,
    },
    opts.settings,
    env,
    log,
  );
  return { store, resume };
}

/** Step 3: the sub-agent tree under the AGENT_MODE fixed for this session (resume.ts fixed the copilot mode). */
function fixModeAndTree(
  resume: Resumed,
  endpoint: ProviderEndpoint,
  sessionId: string,
  live: LiveState,
  late: { registry: ToolRegistry; graph: AgentGraph; validator: ValidatorHost; rootValidator: RootValidatorHost },
): SessionTree {
  const { settings, fixation, trees, agentMode } = resume;
  const tree = new SessionTree({
    mode: agentMode,
    ...(fixation.budget ? { budget: fixation.budget } : {}),
    trees,
    registered: (name) => late.registry.get(name) !== undefined,
    graph: () => late.graph,
    validator: () => late.validator,
    rootValidator: () => late.rootValidator,
    rootId: () => sessionId,
    copilotMode: () => live.mode,
    modeTools: (m) => late.registry.forMode(m).map((t) => t.name),
    limits: () => live.limits,
    schedule: () => settings,
    rootRun: () => live.current,
    model: endpoint.model,
    modelPrices: settings.model_prices,
  });
  resume.notices.push(...tree.notices);
  return tree;
}

interface AttachedTools {
  registry: ToolRegistry;
  /** per-session services the tools share (console pools, MCP clients), closed with the session */
  services: Map<string, unknown>;
  /** the tools from outside the core, attaching in the background */
  ready: Promise<{ notices: string[] } | undefined> | undefined;
  /** servers of `ready` still connecting (a request names them while it waits) */
  connecting: ReadonlySet<string>;
}

/** Step 4: the registry (the built-in tools and the tree's `agent` tool) and the tools handed in from outside. */
function attachTools(
  baseTools: ToolDef[],
  tree: SessionTree,
  settings: Settings,
  log: Logger,
  attach: ToolAttacher | undefined,
): AttachedTools {
  const registry = new ToolRegistry([...baseTools, ...tree.tools]);
  const services = new Map<string, unknown>();
  // started in the background, so a TUI does not wait for the user's MCP servers; a request waits before the model is shown their tools
  const connecting = new Set<string>();
  const ready = attach?.({ registry, settings, log, services, connecting }).catch((err: unknown) => {
    log.warn('MCP servers could not be started', { error: errorMessage(err) });
    connecting.clear();
    return undefined;
  });
  return { registry, services, ready, connecting };
}

function approvalContext(settings: Settings, opts: CreateAgentSessionOptions, questions: QuestionTurn): ApprovalContext {
  const policy: ApprovePolicy = settings.approve ?? (opts.approver ? 'ask' : 'never');
  return {
    policy,
    approvalTools: settings.approval_tools,
    sessionAllowed: new Set<string>(),
    interactive: opts.invocation?.interactive ?? opts.approver !== undefined,
    canAsk: opts.approver !== undefined,
    ...(opts.approver ? { approver: approverInTurn(opts.approver, questions) } : {}),
  };
}

const maxOutputCharsFor = (limitK: number) => Math.max(2000, Math.min(DEFAULT_MAX_OUTPUT_CHARS, Math.floor(limitK * 1000 * 4 * 0.15)));

/** What the recursive tree's Validator runs with: its model and prompt, the registry's read-only tools, the tool context. */
function validatorHost(
  provider: ResolvedProvider,
  settings: Settings,
  log: Logger,
  tools: AttachedTools,
  project: SessionProject,
  live: LiveState,
): ValidatorHost {
  const prompts = new PromptLibrary();
  const models = provider.models;
  return {
    model: async () => (typeof models === 'function' ? await models() : models).validator,
    prompt: () => prompts.get('validator'),
    visible: (childTools) =>
      tools.registry.visible(live.mode, { kind: 'validator', depth: 0, tools: new Set(childTools) }).map((t) => t.name),
    tool: (name) => tools.registry.get(name),
    schema: (name) => tools.registry.schemas(live.mode, ROOT_AGENT).find((s) => s.function.name === name),
    toolContext: (signal, caller) => ({ settings, signal, log, project: () => project.open(), services: tools.services, caller }),
    maxOutputChars: maxOutputCharsFor(provider.limitK),
    maxToolCalls: settings.validator_tool_calls,
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

/** Step 5: the LangGraph graph over the registry, checkpointed in the store. */
function buildSessionGraph(p: {
  provider: ResolvedProvider;
  settings: Settings;
  log: Logger;
  approval: ApprovalContext;
  registry: ToolRegistry;
  services: Map<string, unknown>;
  project: SessionProject;
  store: SessionStore;
  tree: SessionTree;
  sessionId: string;
  limitRaiser?: LimitRaiser;
}): AgentGraph {
  const { provider, settings, log, registry, services, project, store, tree, sessionId } = p;
  const { limitK } = provider;
  const checkpointStore = new CheckpointStore(store.db);
  const faults = { sessionId, store: new FaultStore(store.db) };
  return buildGraph(
    {
      registry,
      prompts: new PromptLibrary(),
      counter: provider.counter,
      context: { limitK, strategy: settings.context_strategy, summarize: settings.context_summarize },
      models: provider.models,
      endpoint: provider.endpoint,
      cost: chatCost(provider.endpoint.model, settings),
      ...(p.limitRaiser ? { limitRaiser: p.limitRaiser } : {}),
      idleTimeoutMs: settings.llm_idle_timeout_ms,
      log,
      approval: p.approval,
      maxOutputChars: maxOutputCharsFor(limitK),
      topology: (signal) => project.topology(signal),
      toolContext: (signal): ToolContext => ({ settings, signal, log, project: () => project.open(), services, faults }),
      checkpoints: sessionCheckpointer({
        store: checkpointStore,
        sessionId,
        requestNo: () => checkpointStore.currentRequestNo(sessionId),
        context: (signal) => ({ settings, signal, log, project: () => project.open(), services }),
      }),
      previewer: capturePreviewer((signal) => ({ settings, signal, log, project: () => project.open(), services })),
      validateAnswer: (a) => tree.validateRootAnswer(a),
      rootValidationRounds: settings.root_validation_rounds,
      needsTitle: () => !tree.inChild() && !store.get(sessionId)?.title,
      saveTitle: (t) => store.setTitle(sessionId, sanitizeLine(redact(t))),
      run: () => {
        const r = tree.current();
        if (!r) throw new Error('graph used outside a request');
        return r;
      },
    },
    store.saver,
  );
}

/** The user's answers to reached limits, asked in turn with approvals; a raise "for this session" is kept in the session's limits. */
function limitRaiser(ask: LimitAsker, live: LiveState, turn: QuestionTurn): LimitRaiser {
  return {
    turn,
    ask,
    keep: (patch) => {
      live.limits = { ...live.limits, ...patch, tool_limits: { ...(patch.tool_limits ?? live.limits.tool_limits) } };
    },
  };
}

/** The chat model's price and output cap: --max-cost reserves a call's worst case from them. */
export function chatCost(model: string, settings: Pick<Settings, 'model_prices' | 'max_tokens'>) {
  const price = priceOf(model, settings.model_prices);
  return { ...(price ? { price } : {}), maxOutputTokens: settings.max_tokens ?? COST_OUTPUT_CAP };
}

/** What one request (session/run.ts) needs from the session. */
function requestHost(p: {
  sessionId: string;
  resume: Resumed;
  provider: ResolvedProvider;
  opts: CreateAgentSessionOptions;
  log: Logger;
  store: SessionStore;
  graph: AgentGraph;
  project: SessionProject;
  tools: AttachedTools;
  tree: SessionTree;
  live: LiveState;
}): RequestHost {
  const { sessionId, resume, store, tree, live } = p;
  return {
    sessionId,
    agentMode: resume.agentMode,
    endpoint: p.provider.endpoint,
    modelPrices: resume.settings.model_prices,
    hasApprover: p.opts.approver !== undefined,
    log: p.log,
    store,
    graph: p.graph,
    project: p.project,
    mode: () => live.mode,
    limits: () => live.limits,
    mcpReady: p.tools.ready,
    mcpConnecting: p.tools.connecting,
    setCurrent: (r) => {
      live.current = r;
      // the tree's duration budget counts only the time requests run
      if (!r) tree.requestEnded();
    },
    runExtras: () => tree.rootRunExtras(),
    ensureRow(prompt) {
      if (live.rowCreated) return;
      // the lease before the row: `sessions delete` of the new row must find it taken
      live.lease ??= SessionLease.acquire(store.db, sessionId);
      store.create({ id: sessionId, copilot_mode: live.mode, agent_mode: resume.agentMode });
      tree.recordRoot(sessionId, prompt);
      live.rowCreated = true;
    },
    rowCreated: () => live.rowCreated,
    watchStops: (stopRoot, notice) =>
      watchStopRequests(resume.trees, sessionId, (id) => {
        if (id === sessionId) {
          notice('stopped by `sessions stop` from another terminal');
          stopRoot();
        } else if (tree.engine.stop(id))
          notice(`sub-agent ${id.slice(0, 8)} and its subtree stopped by \`sessions stop\` from another terminal`);
      }),
  };
}

/** The AgentSession the front ends hold: one request at a time, the tree views, close(). */
function sessionFacade(p: {
  sessionId: string;
  resume: Resumed;
  provider: ResolvedProvider;
  store: SessionStore;
  tree: SessionTree;
  host: RequestHost;
  live: LiveState;
  project: SessionProject;
  tools: AttachedTools;
}): AgentSessionExt {
  const { sessionId, resume, store, tree, host, live, project, tools } = p;
  const { trees, agentMode, modeLock } = resume;
  const repair = new HistoryRepair(host);
  let busy = false;
  let closed = false;
  const idleGc = new IdleCollector();

  const session: AgentSessionExt = {
    get id() {
      return sessionId;
    },
    get mode() {
      return live.mode;
    },
    agentMode,
    resumed: resume.row !== undefined,
    notices: resume.notices,
    model: p.provider.endpoint.model,
    get limits() {
      return live.limits;
    },
    info: () => store.get(sessionId),
    transcript: async () => store.saver.log.transcript(sessionId),
    tree: () => ({ root: trees.get(sessionId), agents: trees.nodes(sessionId) }),
    usage: () => tree.usage(),
    treeText: () => {
      const v = session.treeView();
      const rootValidation = parseJson<ValidationResult>(trees.get(sessionId)?.validation ?? null);
      return renderTree(sessionId, agentMode, v.agents, v.resource_usage, rootValidation);
    },
    // a front end that quits during a turn still asks when the turn's stream ends: nothing to say then
    budgetLine: () => (closed ? undefined : budgetLine(session.treeView().resource_usage)),
    treeView: () => {
      const root = trees.get(sessionId);
      return {
        agents: agentViews(trees.nodes(sessionId), trees.reviewNotes(sessionId)),
        resource_usage: resourceUsage(root, root ? tree.usageOrNone() : undefined),
      };
    },
    stopAgent: (id) => {
      const t = runningAgent(trees, sessionId, id);
      if ('refused' in t) return t;
      // registered in this process only while its batch runs
      return tree.engine.stop(t.node.id) ? { stopped: t.node.id } : { refused: `sub-agent ${t.node.id.slice(0, 8)} is not running here` };
    },
    async estimate(prompt, signal) {
      checkPromptSize(prompt);
      await tools.ready;
      const { settings } = resume;
      return estimateRequest(
        prompt,
        {
          sessionId,
          model: p.provider.endpoint.model,
          graph: host.graph,
          registry: tools.registry,
          counter: p.provider.counter,
          context: { limitK: p.provider.limitK, strategy: settings.context_strategy },
          topology: (s) => project.topology(s),
          mode: live.mode,
          limits: live.limits,
          price: priceOf(p.provider.endpoint.model, settings.model_prices),
          maxOutputTokens: settings.max_tokens ?? (live.limits.max_cost !== undefined ? COST_OUTPUT_CAP : undefined),
        },
        signal ?? new AbortController().signal,
      );
    },
    setMode(m: CopilotMode) {
      assertUnlocked(modeLock, m, 'mode');
      live.mode = m;
      if (live.rowCreated) store.setMode(sessionId, m);
    },
    setLimits(l: Partial<RequestLimits>) {
      // a cost limit holds only against a price: refused for an unpriced model, as --max-cost is at start
      if (l.max_cost !== undefined) priceForCostLimit(p.provider.endpoint.model, resume.settings.model_prices);
      // a key given as undefined clears that limit; a given tool_limits replaces the map
      live.limits = { ...live.limits, ...l, tool_limits: { ...(l.tool_limits ?? live.limits.tool_limits) } };
    },
    send(prompt: string, sendOpts?: { signal?: AbortSignal }): AsyncIterable<AgentEvent> {
      if (busy) throw new UsageError('a request is already running in this session');
      checkPromptSize(prompt);
      busy = true;
      idleGc.cancel();
      const q = new RedactingEventQueue();
      void runRequest(host, repair, prompt, q, sendOpts?.signal)
        .catch((err) => {
          q.push({ type: 'error', error: { type: 'internal', message: errorMessage(err) } });
          q.push({
            type: 'done',
            stopped_reason: 'error',
            stats: { iterations: 0, llm_calls: 0, tool_calls: 0, input_tokens: 0, output_tokens: 0, duration_ms: 0, cost_usd: null },
          });
        })
        .finally(() => {
          busy = false;
          idleGc.schedule();
          q.end();
        });
      return q;
    },
    async close() {
      closed = true;
      idleGc.cancel();
      await tools.ready;
      await closeServices(tools.services);
      await project.close();
      live.lease?.release();
      store.close();
    },
  };
  return session;
}

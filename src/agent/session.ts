/**
 * createAgentSession: composes settings, provider, GNS3 project, tools, the graph
 * and the SQLite store into an AgentSession whose send() yields the typed event
 * stream (docs/ARCHITECTURE.md, One request, event by event). One request runs at a time per session.
 * The jobs live in ./session/: resume.ts (which row, which modes), project.ts (the GNS3
 * project scope), run.ts (one request), models.ts (the lazily built chat models).
 */
import type { Settings, InvocationOptions } from '../config/schema.js';
import type { AgentSession, Approver, RequestLimits } from '../core/api.js';
import type { AgentEvent, AgentMode } from '../core/events.js';
import type { CopilotMode } from '../core/modes.js';
import type { ToolContext, ToolDef } from '../tools/types.js';
import type { ProjectScope } from '../gns3/types.js';
import { createLogger, type Logger } from '../log.js';
import { ProviderError, UsageError, errorMessage } from '../errors.js';
import { assertNoRemovedAgentFlags } from '../core/agent-mode.js';
import { SessionTree } from './tree/session-tree.js';
import type { TreeUsage } from './tree/ledger.js';
import { agentViews, budgetLine, renderTree, resourceUsage, type AgentView, type ResourceUsage } from './tree/view.js';
import type { AgentNodeRow, TreeRow } from '../sessions/tree-store.js';
import { encodingForModel, KEYLESS_PROVIDERS, resolveApiKey, resolveContextLimitK, resolveProviderEndpoint } from './providers.js';
import { limitsFromSettings } from './limits.js';
import { PromptLibrary } from './prompts.js';
import { TokenCounter } from './tokens.js';
import { IdleCollector } from './idle-gc.js';
import { buildGraph } from './graph.js';
import type { RunControl } from './graph-deps.js';
import { DEFAULT_MAX_OUTPUT_CHARS, ToolRegistry } from '../tools/registry.js';
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
import { resumeSession } from './session/resume.js';
import { sessionProject } from './session/project.js';
import { HistoryRepair, runRequest, type RequestHost } from './session/run.js';
import { lazyChatModels } from './session/models.js';

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
  /** stops one sub-agent and its subtree; false when it is not running */
  stopAgent(agentId: string): boolean;
}

async function loadTools(override?: ToolDef[]): Promise<ToolDef[]> {
  if (override) return override;
  const { allTools } = await import('../tools/index.js');
  return allTools();
}

const forkedInvocations = new WeakSet<object>();

export async function createAgentSession(opts: CreateAgentSessionOptions): Promise<AgentSessionExt> {
  const env = opts.env ?? process.env;
  const log = opts.log ?? createLogger(opts.settings.log_level);
  assertNoRemovedAgentFlags(env);
  const endpoint = resolveProviderEndpoint(opts.settings);
  const limitK = resolveContextLimitK(opts.settings);
  const apiKey = await resolveApiKey(opts.settings.provider);
  if (!apiKey && !KEYLESS_PROVIDERS.has(opts.settings.provider) && opts.settings.provider !== 'custom')
    throw new ProviderError(
      `No LLM API key for provider "${opts.settings.provider}": run \`gns3-copilot auth login\` or set GNS3_COPILOT_API_KEY (or OPENAI_API_KEY)`,
    );
  const models = lazyChatModels(endpoint, apiKey, opts.settings);
  // built on the first LLM call: an idle TUI session does not hold the BPE ranks
  const counter = TokenCounter.lazy(encodingForModel(endpoint.model));
  const prompts = new PromptLibrary();
  const baseTools = await loadTools(opts.tools);

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
  const { row, settings, trees, fixation, agentMode, modeLock, notices } = resume;
  let { lease, mode } = resume;
  const resumed = row !== undefined;
  const sessionId = row?.id ?? (await import('node:crypto')).randomUUID();
  let rowCreated = resumed;
  let limits: RequestLimits = limitsFromSettings(settings);
  const policy: ApprovePolicy = settings.approve ?? (opts.approver ? 'ask' : 'never');
  const interactive = opts.invocation?.interactive ?? opts.approver !== undefined;
  const approval = {
    policy,
    approvalTools: settings.approval_tools,
    sessionAllowed: new Set<string>(),
    interactive,
    canAsk: opts.approver !== undefined,
    ...(opts.approver ? { approver: opts.approver } : {}),
  };

  const services = new Map<string, unknown>();
  // The user's MCP servers (mcp_servers) start in the background, so a TUI does not wait for
  // them; a request waits before the model is shown their tools. Closed with the session.
  const mcpReady =
    Object.keys(settings.mcp_servers).length > 0
      ? import('../mcp/client/attach.js')
          .then((m) => m.attachMcpServers(registry, settings.mcp_servers, log, services))
          .catch((err: unknown) => void log.warn('MCP servers could not be started', { error: errorMessage(err) }))
      : undefined;
  const project = sessionProject(settings, log, opts.projectScope);

  let current: RunControl | undefined;
  const tree: SessionTree = new SessionTree({
    mode: agentMode,
    ...(fixation.budget ? { budget: fixation.budget } : {}),
    trees,
    registered: baseTools.map((t) => t.name),
    graph: () => graph,
    rootId: () => sessionId,
    copilotMode: () => mode,
    modeTools: (m) => registry.forMode(m).map((t) => t.name),
    limits: () => limits,
    schedule: () => settings,
    rootRun: () => current,
    model: endpoint.model,
    modelPrices: settings.model_prices,
  });
  notices.push(...tree.notices);
  const registry = new ToolRegistry([...baseTools, tree.tool]);
  const graph = buildGraph(
    {
      registry,
      prompts,
      counter,
      context: { limitK, strategy: settings.context_strategy, summarize: settings.context_summarize },
      models,
      endpoint,
      idleTimeoutMs: settings.llm_idle_timeout_ms,
      log,
      approval,
      maxOutputChars: Math.max(2000, Math.min(DEFAULT_MAX_OUTPUT_CHARS, Math.floor(limitK * 1000 * 4 * 0.15))),
      topologyText: (signal) => project.topologyText(signal),
      toolContext: (signal): ToolContext => ({ settings, signal, log, project: () => project.open(), services }),
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

  const host: RequestHost = {
    sessionId,
    agentMode,
    endpoint,
    modelPrices: settings.model_prices,
    hasApprover: opts.approver !== undefined,
    log,
    store,
    graph,
    project,
    mode: () => mode,
    limits: () => limits,
    mcpReady,
    setCurrent: (r) => (current = r),
    runExtras: () => tree.rootRunExtras(),
    ensureRow(prompt) {
      if (rowCreated) return;
      store.create({ id: sessionId, copilot_mode: mode, agent_mode: agentMode });
      lease ??= SessionLease.acquire(store.db, sessionId);
      tree.recordRoot(sessionId, prompt);
      rowCreated = true;
    },
    rowCreated: () => rowCreated,
  };
  const repair = new HistoryRepair(host);
  let busy = false;
  const idleGc = new IdleCollector();

  const session: AgentSessionExt = {
    get id() {
      return sessionId;
    },
    get mode() {
      return mode;
    },
    agentMode,
    resumed,
    notices,
    model: endpoint.model,
    get limits() {
      return limits;
    },
    info: () => store.get(sessionId),
    transcript: async () => store.saver.log.transcript(sessionId),
    tree: () => ({ root: trees.get(sessionId), agents: trees.nodes(sessionId) }),
    usage: () => tree.usage(),
    treeText: () => {
      const v = session.treeView();
      return renderTree(sessionId, agentMode, v.agents, v.resource_usage);
    },
    budgetLine: () => budgetLine(session.treeView().resource_usage),
    treeView: () => {
      const root = trees.get(sessionId);
      return { agents: agentViews(trees.nodes(sessionId)), resource_usage: resourceUsage(root, root ? tree.usageOrNone() : undefined) };
    },
    stopAgent: (id) => tree.engine.stop(id),
    setMode(m: CopilotMode) {
      assertUnlocked(modeLock, m, 'mode');
      mode = m;
      if (rowCreated) store.setMode(sessionId, m);
    },
    setLimits(l: Partial<RequestLimits>) {
      // a key given as undefined clears that limit; a given tool_limits replaces the map
      limits = { ...limits, ...l, tool_limits: { ...(l.tool_limits ?? limits.tool_limits) } };
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
      idleGc.cancel();
      await mcpReady;
      await closeServices(services);
      await project.close();
      lease?.release();
      store.close();
    },
  };
  return session;
}

/**
 * createAgentSession: composes settings, provider, GNS3 project, tools, the graph
 * and the SQLite store into an AgentSession whose send() yields the typed event
 * stream (docs/ARCHITECTURE.md, One request, event by event). One request runs at a time per session.
 */
import { HumanMessage } from '@langchain/core/messages';
import type { Settings, InvocationOptions } from '../config/schema.js';
import type { AgentSession, Approver, RequestLimits } from './api.js';
import type { AgentEvent, AgentMode, RunStats, StoppedReason } from './events.js';
import type { CopilotMode } from './modes.js';
import type { ToolContext, ToolDef } from '../tools/types.js';
import type { ProjectScope } from '../gns3/types.js';
import { createLogger, type Logger } from '../log.js';
import { ControllerError, CopilotError, ExitCode, ProviderError, UsageError, errorMessage, errorTypeOf } from '../errors.js';
import { assertNoRemovedAgentFlags } from './agent-mode.js';
import { fixAgentMode } from './tree/fixation.js';
import { SessionTree } from './tree/session-tree.js';
import type { TreeUsage } from './tree/ledger.js';
import { agentViews, budgetLine, renderTree, resourceUsage, type AgentView, type ResourceUsage } from './tree/view.js';
import { TreeStore, type AgentNodeRow, type TreeRow } from '../sessions/tree-store.js';
import { createChatModel, encodingForModel, KEYLESS_PROVIDERS, resolveApiKey, resolveContextLimitK, resolveProviderEndpoint } from './providers.js';
import { describeLimits, limitsFromSettings, recursionLimitFor } from './limits.js';
import { PromptLibrary } from './prompts.js';
import { costUsd, roundUsd } from './pricing.js';
import { TokenCounter } from './tokens.js';
import { EventQueue } from './queue.js';
import { IdleCollector } from './idle-gc.js';
import { buildGraph, danglingToolCalls, stopReasonOf, toolMessage, type ChatModels, type RunControl } from './graph.js';
import { requestInput, type AgentStateType } from './state.js';
import { DEFAULT_MAX_OUTPUT_CHARS, ToolRegistry, resultJson, type ApprovePolicy } from '../tools/registry.js';
import { closeServices } from '../tools/services.js';
import { SessionStore, type SessionRow } from '../sessions/store.js';
import type { TranscriptEntry } from '../sessions/transcript.js';
import { SessionLease } from '../sessions/lease.js';
import { forkSession } from '../sessions/fork.js';
import { recordRepair } from '../sessions/repair.js';
import { assertUnlocked, describeLock, lockedSetting } from '../config/locks.js';
import { RedactingEventQueue } from '../security/events.js';
import { redact } from '../security/redact.js';
import { sanitizeLine } from '../security/sanitize.js';
import { checkPromptSize } from './input-limits.js';
import { abortable } from './stream-guard.js';

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
  // reassigned once the resumed row is known (its project); everything below reads this
  let settings = opts.settings;
  const env = opts.env ?? process.env;
  const log = opts.log ?? createLogger(settings.log_level);
  assertNoRemovedAgentFlags(env);
  const endpoint = resolveProviderEndpoint(settings);
  const limitK = resolveContextLimitK(settings);
  const apiKey = await resolveApiKey(settings.provider);
  if (!apiKey && !KEYLESS_PROVIDERS.has(settings.provider) && settings.provider !== 'custom')
    throw new ProviderError(
      `No LLM API key for provider "${settings.provider}": run \`gns3-copilot auth login\` or set GNS3_COPILOT_API_KEY (or OPENAI_API_KEY)`,
    );
  // Built with the first LLM call: importing @langchain/openai costs ~45 MB that an
  // idle TUI session waiting at the prompt should not pay for.
  let modelsPromise: Promise<ChatModels> | undefined;
  const models = (): Promise<ChatModels> => {
    modelsPromise ??= Promise.all(
      (['chat', 'title', 'summary'] as const).map((purpose) =>
        createChatModel({
          endpoint,
          apiKey,
          purpose,
          ...(purpose === 'chat' && settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
          ...(purpose === 'chat' && settings.max_tokens !== undefined ? { maxTokens: settings.max_tokens } : {}),
          ...(purpose !== 'chat' ? { maxTokens: purpose === 'title' ? 32 : 600, temperature: 0 } : {}),
        }),
      ),
    ).then(([chat, title, summary]) => ({ chat: chat!, title: title!, summary: summary! }));
    modelsPromise.catch(() => (modelsPromise = undefined));
    return modelsPromise;
  };
  // built on the first LLM call: an idle TUI session does not hold the BPE ranks
  const counter = TokenCounter.lazy(encodingForModel(endpoint.model));
  const prompts = new PromptLibrary();
  const baseTools = await loadTools(opts.tools);

  const store = await SessionStore.open(settings.data_dir);
  // token counts are stored with each message, so a resumed session does not re-count its history
  store.saver.tokens = counter;
  let row: SessionRow | undefined;
  const resumeId = opts.sessionId ?? opts.invocation?.resumeId;
  if (resumeId) {
    row = store.find(resumeId);
    if (!row) {
      store.close();
      throw new UsageError(`no session "${resumeId}" (see \`gns3-copilot sessions list\`)`);
    }
  } else if (opts.continueLatest ?? opts.invocation?.continueLatest) {
    row = store.latest(settings.project ? { project: settings.project } : {});
  }
  // --fork applies to the session the command line names, once (the TUI reuses its invocation for /new, /resume)
  const fork = opts.fork ?? (opts.invocation?.fork === true && !forkedInvocations.has(opts.invocation));
  if (opts.invocation) forkedInvocations.add(opts.invocation);
  if (fork) {
    if (!row) {
      store.close();
      throw new UsageError('--fork needs a session to branch: add -r <id> or -c');
    }
    row = store.get(forkSession(store.db, row.id))!;
  }
  let lease: SessionLease | undefined;
  try {
    if (row) lease = SessionLease.acquire(store.db, row.id);
  } catch (err) {
    store.close();
    throw err;
  }
  const resumed = row !== undefined;
  // A resumed conversation talks about the devices of the project it was held in, so it
  // reopens that project (by id: stable across renames) rather than whatever project
  // the settings carry now (GNS3_PROJECT, a config file). Only an explicit --project
  // moves it; the row then follows on the next request (setProject). A row without a
  // project (held before any was chosen) takes the settings' project.
  const rowProject = row?.project_id ?? row?.project_name ?? undefined;
  const projectExplicit = opts.projectExplicit ?? opts.invocation?.projectExplicit ?? false;
  // ...unless the classroom locked the project: then the lock wins over the stored one
  if (row && rowProject && !(projectExplicit && settings.project) && !lockedSetting('project', env)) {
    const matches = settings.project === row.project_id || settings.project === row.project_name;
    if (settings.project && !matches)
      log.info('resuming a session of another project; opening its project', { session_id: row.id, project: row.project_name ?? rowProject, settings_project: settings.project });
    if (!matches) settings = { ...settings, project: rowProject };
  }
  // AGENT_MODE is fixed on the tree at creation; a resumed session keeps its own.
  const trees = new TreeStore(store.db);
  let fixation: ReturnType<typeof fixAgentMode>;
  try {
    fixation = fixAgentMode(env, row, trees, settings.agent_budget);
  } catch (err) {
    lease?.release();
    store.close();
    throw err;
  }
  const agentMode: AgentMode = fixation.mode;
  const notices: string[] = fixation.notice ? [fixation.notice] : [];
  if (fixation.notice) log.warn(fixation.notice);
  // A resumed session keeps its copilot mode unless a non-default mode was asked for
  // (`-m lab -c`, `inject -c`); settings do not tell an explicit default from an implicit one.
  let mode: CopilotMode = row && settings.mode === 'teaching_assistant' ? row.copilot_mode : settings.mode;
  // A classroom lock wins over the stored session's mode (resume, --continue, inject -c).
  const modeLock = lockedSetting('mode', env);
  if (modeLock && mode !== modeLock.value) {
    notices.push(`${describeLock(modeLock)}: this session runs in ${modeLock.value} mode, not ${mode}`);
    log.warn('classroom lock changed the session mode', { from: mode, to: modeLock.value });
    mode = modeLock.value;
  }
  if (row && row.copilot_mode !== mode) store.setMode(row.id, mode);
  const sessionId = row?.id ?? (await import('node:crypto')).randomUUID();
  let rowCreated = resumed;
  let limits: RequestLimits = limitsFromSettings(settings);
  const policy: ApprovePolicy = settings.approve ?? (opts.approver ? 'ask' : 'never');
  const interactive = opts.invocation?.interactive ?? opts.approver !== undefined;
  const approval = { policy, approvalTools: settings.approval_tools, sessionAllowed: new Set<string>(), interactive, ...(opts.approver ? { approver: opts.approver } : {}) };

  // --- GNS3 project, opened lazily and once.
  const services = new Map<string, unknown>();
  // The user's MCP servers (mcp_servers) start in the background, so a TUI does not wait for
  // them; a request waits before the model is shown their tools. Closed with the session.
  const mcpReady =
    Object.keys(settings.mcp_servers).length > 0
      ? import('../mcp/client/attach.js')
          .then((m) => m.attachMcpServers(registry, settings.mcp_servers, log, services))
          .catch((err: unknown) => void log.warn('MCP servers could not be started', { error: errorMessage(err) }))
      : undefined;
  let gns3Client: { close(): Promise<void> } | undefined;
  let projectPromise: Promise<ProjectScope> | undefined;
  /** a controller probe still waiting (given up on by --max-time/Ctrl-C): close() must not wait for it */
  let projectPending = false;
  const openProject = (): Promise<ProjectScope> => {
    if (opts.projectScope) return (projectPromise ??= opts.projectScope());
    if (!settings.project)
      return Promise.reject(new ControllerError('no GNS3 project selected: pass --project <name|id> (or set GNS3_PROJECT)'));
    projectPromise ??= (async () => {
      const [{ createKeychainGns3Client }, { openProjectScope }] = await Promise.all([import('../gns3/keychain-client.js'), import('../gns3/client.js')]);
      const client = createKeychainGns3Client(settings, log);
      gns3Client = client;
      return openProjectScope(client, settings.project!);
    })();
    projectPending = true;
    projectPromise.then(
      () => (projectPending = false),
      () => (projectPending = false),
    );
    projectPromise.catch(() => (projectPromise = undefined));
    return projectPromise;
  };
  const hasProject = () => opts.projectScope !== undefined || settings.project !== undefined;
  const topologyText = async (signal: AbortSignal): Promise<string | undefined> => {
    if (!hasProject()) return undefined;
    const project = await openProject();
    const t = await project.getTopology(signal);
    const { renderTopologyText } = await import('../gns3/render.js');
    return renderTopologyText(t);
  };

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
      topologyText,
      toolContext: (signal): ToolContext => ({ settings, signal, log, project: openProject, services }),
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
  const config = (l: RequestLimits) => ({ configurable: { thread_id: sessionId }, recursionLimit: recursionLimitFor(l) });

  /**
   * Requests in this process always end with a valid history (nodes turn aborts into
   * state), so only the first request — a resumed session — and one after a failed
   * request need the check; skipping it saves loading the whole checkpoint per turn.
   */
  let historyChecked = false;
  /** A process killed mid-turn leaves tool calls without results: answer them so the history is valid. */
  async function repairHistory(): Promise<void> {
    if (historyChecked) return;
    historyChecked = true;
    const snap = await graph.getState(config(limits));
    const messages = (snap.values as AgentStateType | undefined)?.messages ?? [];
    const dangling = danglingToolCalls(messages);
    if (dangling.length === 0) return;
    log.warn('previous run was interrupted; marking its pending tool calls as aborted', { count: dangling.length });
    const repaired = dangling.map((c) =>
      toolMessage(c, { status: 'aborted', output: resultJson('aborted', 'aborted: the previous run was interrupted before this tool call finished') }),
    );
    await graph.updateState(config(limits), { messages: repaired, stop: 'aborted' }, 'limit');
    recordRepair(store, sessionId, [...messages, ...repaired]);
  }

  let busy = false;
  const idleGc = new IdleCollector();

  async function runRequest(prompt: string, q: EventQueue<AgentEvent>, userSignal?: AbortSignal): Promise<void> {
    const t0 = performance.now();
    const mcp = await mcpReady;
    const reqLimits = { ...limits, tool_limits: { ...limits.tool_limits } };
    const ac = new AbortController();
    const onUserAbort = () => ac.abort('aborted');
    if (userSignal?.aborted) ac.abort('aborted');
    userSignal?.addEventListener('abort', onUserAbort, { once: true });
    const timer = reqLimits.max_time ? setTimeout(() => ac.abort('max_time'), reqLimits.max_time * 1000) : undefined;
    const run: RunControl = {
      emit: (e) => q.push(e),
      signal: ac.signal,
      approvalBlocked: 0,
      ...(reqLimits.max_time ? { deadline: Date.now() + reqLimits.max_time * 1000 } : {}),
    };
    current = run;
    let stopped: StoppedReason = 'done';
    let final: AgentStateType | undefined;
    try {
      let projectId: string | null = store.get(sessionId)?.project_id ?? null;
      let project: ProjectScope | undefined;
      if (hasProject()) {
        try {
          // --max-time covers the controller probe too
          project = await abortable(openProject(), ac.signal, () =>
            ac.signal.reason === 'max_time'
              ? new ControllerError(`the GNS3 controller did not answer within --max-time (${reqLimits.max_time} s)`)
              : new CopilotError('aborted by the user', ExitCode.Aborted),
          );
          projectId = project.projectId;
        } catch (err) {
          // init still comes first, so stream consumers always see which session failed
          q.push({ type: 'init', session_id: sessionId, project_id: null, mode, agent_mode: agentMode, model: endpoint.model });
          throw err;
        }
      }
      // The row exists before the graph runs, so a run killed mid-turn can be continued.
      if (!rowCreated) {
        store.create({ id: sessionId, copilot_mode: mode, agent_mode: agentMode });
        lease ??= SessionLease.acquire(store.db, sessionId);
        tree.recordRoot(sessionId, prompt);
        rowCreated = true;
      }
      Object.assign(run, tree.rootRunExtras());
      if (project) store.setProject(sessionId, project.projectId, project.projectName);
      q.push({ type: 'init', session_id: sessionId, project_id: projectId, mode, agent_mode: agentMode, model: endpoint.model });
      for (const message of mcp?.notices.splice(0) ?? []) q.push({ type: 'notice', message });
      log.info('request', { session_id: sessionId, mode, limits: describeLimits(reqLimits), model: endpoint.model, provider: endpoint.provider });
      await repairHistory();
      const input = requestInput(new HumanMessage(prompt), reqLimits, mode);
      const stream = await graph.stream(input, { ...config(reqLimits), streamMode: 'values' });
      for await (const values of stream) final = values as AgentStateType;
      stopped = final?.stop ?? final?.limit_reason ?? 'done';
      if (ac.signal.aborted && stopped === 'done') stopped = stopReasonOf(ac.signal);
      if (stopped === 'aborted') q.push({ type: 'error', error: { type: 'aborted', message: 'aborted by the user' } });
      else if (stopped !== 'done' && reqLimits.on_limit === 'fail')
        q.push({ type: 'error', error: { type: 'limit', message: `limit reached: ${stopped} (--on-limit fail)` } });
      if (run.approvalBlocked > 0 && !opts.approver)
        q.push({
          type: 'error',
          error: { type: 'approval', message: `${run.approvalBlocked} tool call(s) needed approval that this run cannot give: rerun with --approve config (or --approve all)` },
        });
    } catch (err) {
      historyChecked = false;
      stopped = ac.signal.aborted ? stopReasonOf(ac.signal) : 'error';
      const type = ac.signal.aborted && stopped === 'aborted' ? 'aborted' : errorTypeOf(err);
      log.error('request failed', { error: errorMessage(err), type });
      q.push({ type: 'error', error: { type, message: errorMessage(err).split('\n')[0] ?? 'error' } });
      try {
        final = (await graph.getState(config(reqLimits))).values as AgentStateType;
      } catch {
        // state unreadable: stats stay zero
      }
    } finally {
      if (timer) clearTimeout(timer);
      userSignal?.removeEventListener('abort', onUserAbort);
      current = undefined;
      for (const message of mcp?.notices.splice(0) ?? []) q.push({ type: 'notice', message });
    }
    const stats: RunStats = {
      iterations: final?.llm_calls ?? 0,
      llm_calls: final?.llm_calls ?? 0,
      tool_calls: final?.tool_calls_count ?? 0,
      input_tokens: final?.usage?.input_tokens ?? 0,
      output_tokens: final?.usage?.output_tokens ?? 0,
      duration_ms: Math.round(performance.now() - t0),
      cost_usd: roundUsd(costUsd(endpoint.model, final?.usage ?? { input_tokens: 0, output_tokens: 0 }, settings.model_prices)),
    };
    try {
      if (rowCreated)
        store.recordRequest(sessionId, {
          message_count: final?.messages?.length ?? store.get(sessionId)?.message_count ?? 0,
          llm_calls: stats.llm_calls,
          input_tokens: stats.input_tokens,
          output_tokens: stats.output_tokens,
        });
      if (rowCreated) store.pruneCheckpoints(sessionId);
      if (rowCreated) store.saver.flushTokenCounts(sessionId);
    } catch (err) {
      log.warn('could not record session usage', { error: errorMessage(err) });
    }
    q.push({ type: 'done', stopped_reason: stopped, stats });
  }

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
      void runRequest(prompt, q, sendOpts?.signal)
        .catch((err) => {
          q.push({ type: 'error', error: { type: 'internal', message: errorMessage(err) } });
          q.push({ type: 'done', stopped_reason: 'error', stats: { iterations: 0, llm_calls: 0, tool_calls: 0, input_tokens: 0, output_tokens: 0, duration_ms: 0, cost_usd: null } });
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
      const closing = gns3Client?.close().catch(() => undefined);
      if (!projectPending) await closing;
      lease?.release();
      store.close();
    },
  };
  return session;
}

/**
 * createAgentSession: composes settings, provider, GNS3 project, tools, the graph
 * and the SQLite store into a CopilotSession whose send() yields the typed event
 * stream (docs/ARCHITECTURE.md, One request, event by event). One request runs at a time per session.
 * It reads as its steps, each built from the ones before: resolve the provider, open the store
 * (and the session it resumes), the registry of the built-in tools, the graph over it, the
 * sub-agent tree over the graph (its tools join the registry), the tools from outside the
 * core, then the session the front ends use. The jobs live in ./session/: provider.ts,
 * resume.ts (which row, which modes), project.ts (the GNS3 project scope), wiring.ts (graph,
 * tree, hosts), run.ts (one request), facade.ts (the session object), models.ts (the lazily
 * built chat models).
 */
import { randomUUID } from 'node:crypto';
import { createLogger, type Logger } from '../log.js';
import { assertNoRemovedAgentFlags } from '../config/agent-mode.js';
import type { ToolDef } from '../tools/types.js';
import { ToolRegistry } from '../tools/registry.js';
import { SessionStore } from '../sessions/store.js';
import { resolveProviderEndpoint } from './providers.js';
import { priceForCostLimit } from './cost-limit.js';
import type { TokenCounter } from './tokens.js';
import { resumeSession, type Resumed } from './session/resume.js';
import { sessionProject } from './session/project.js';
import { questionQueue } from './session/questions.js';
import { liveState } from './session/live.js';
import { resolveProvider } from './session/provider.js';
import {
  approvalContext,
  attachTools,
  limitRaiser,
  sessionGraph,
  sessionToolRunner,
  sessionTree,
  type SessionParts,
} from './session/wiring.js';
import { requestHost, sessionFacade } from './session/facade.js';
import type { CopilotSession, CreateAgentSessionOptions } from './session/types.js';

export type { CopilotSession, CreateAgentSessionOptions, ToolAttacher } from './session/types.js';
export { chatCost } from './session/provider.js';

export async function createAgentSession(opts: CreateAgentSessionOptions): Promise<CopilotSession> {
  const env = opts.env ?? process.env;
  const log = opts.log ?? createLogger(opts.settings.log_level);
  assertNoRemovedAgentFlags(env);
  // a cost limit needs a price to hold the worst case against (refused before anything else is looked up)
  if (opts.settings.max_cost !== undefined) priceForCostLimit(resolveProviderEndpoint(opts.settings).model, opts.settings.model_prices);
  const provider = await resolveProvider(opts.settings);
  const baseTools = await loadTools(opts.tools);
  const { store, resume } = await openStore(opts, provider.counter, env, log);
  const { settings } = resume;
  const live = liveState(resume);
  const parts: SessionParts = {
    sessionId: resume.row?.id ?? randomUUID(),
    settings,
    log,
    provider,
    store,
    project: sessionProject(settings, log, opts.projectScope),
    registry: new ToolRegistry(baseTools),
    services: new Map<string, unknown>(),
    live,
  };
  const questions = questionQueue();
  const raiser = opts.limitAsker ? limitRaiser(opts.limitAsker, live, questions) : undefined;
  const toolRunner = sessionToolRunner(parts, approvalContext(settings, opts, questions), raiser, resume.trees);
  const graph = sessionGraph(parts, toolRunner);
  const tree = sessionTree(parts, resume, graph, toolRunner);
  const tools = attachTools(parts, opts.attachTools);
  const host = requestHost(parts, { resume, opts, graph, tree, tools });
  return sessionFacade(parts, { resume, tree, host, tools });
}

async function loadTools(override?: ToolDef[]): Promise<ToolDef[]> {
  if (override) return override;
  const { allTools } = await import('../tools/index.js');
  return allTools();
}

const forkedInvocations = new WeakSet<object>();

/** The SQLite store and the session row it resumes (-r, -c, --fork), under its lease. */
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

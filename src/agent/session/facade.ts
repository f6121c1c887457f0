/**
 * The session the front ends hold (CopilotSession): one request at a time through
 * ./run.ts, the tree views, the modes and limits the user sets, --estimate, close().
 */
import type { AgentEvent } from '../../core/events.js';
import type { CopilotMode } from '../../core/modes.js';
import type { RequestLimits, StopOutcome } from '../../core/api.js';
import { UsageError, errorMessage } from '../../errors.js';
import { assertUnlocked } from '../../config/locks.js';
import { RedactingEventQueue } from '../../security/events.js';
import { closeServices } from '../../tools/services.js';
import { SessionLease } from '../../sessions/lease.js';
import type { AgentGraph } from '../graph.js';
import { COST_OUTPUT_CAP, priceForCostLimit } from '../cost-limit.js';
import { priceOf } from '../../core/pricing.js';
import { IdleCollector } from '../idle-gc.js';
import { checkPromptSize } from '../../tools/input-limits.js';
import type { SessionTree } from '../tree/session-tree.js';
import { runningAgent, watchStopRequests } from '../tree/stop-requests.js';
import { agentViews, budgetLine, parseJson, renderTree, resourceUsage } from '../tree/view.js';
import type { ValidationResult } from '../tree/validation-result.js';
import { HistoryRepair, runRequest, type RequestHost } from './run.js';
import { estimateRequest } from './estimate.js';
import type { Resumed } from './resume.js';
import type { AttachedTools, SessionParts } from './wiring.js';
import type { CopilotSession, CreateAgentSessionOptions } from './types.js';

/** What one request (./run.ts) needs from the session. */
export function requestHost(
  p: SessionParts,
  x: { resume: Resumed; opts: CreateAgentSessionOptions; graph: AgentGraph; tree: SessionTree; tools: AttachedTools },
): RequestHost {
  const { sessionId, store, live } = p;
  const { resume, tree } = x;
  return {
    sessionId,
    agentMode: resume.agentMode,
    endpoint: p.provider.endpoint,
    modelPrices: resume.settings.model_prices,
    hasApprover: x.opts.approver !== undefined,
    log: p.log,
    store,
    graph: x.graph,
    project: p.project,
    mode: () => live.mode,
    limits: () => live.limits,
    mcpReady: x.tools.ready,
    mcpConnecting: x.tools.connecting,
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

export function sessionFacade(
  p: SessionParts,
  x: { resume: Resumed; tree: SessionTree; host: RequestHost; tools: AttachedTools },
): CopilotSession {
  const { sessionId, store, live, project } = p;
  const { resume } = x;
  const model = p.provider.endpoint.model;
  const requests = oneRequestAtATime(x.host);
  let closed = false;
  return {
    get id() {
      return sessionId;
    },
    get mode() {
      return live.mode;
    },
    agentMode: resume.agentMode,
    resumed: resume.row !== undefined,
    notices: resume.notices,
    model,
    get limits() {
      return live.limits;
    },
    info: () => store.get(sessionId),
    transcript: async () => store.saver.log.transcript(sessionId),
    ...treeViews(sessionId, resume, x.tree, () => closed),
    estimate: (prompt, signal) => estimate(p, x, prompt, signal),
    setMode(m: CopilotMode) {
      assertUnlocked(resume.modeLock, m, 'mode');
      live.mode = m;
      if (live.rowCreated) store.setMode(sessionId, m);
    },
    setLimits(l: Partial<RequestLimits>) {
      // a cost limit holds only against a price: refused for an unpriced model, as --max-cost is at start
      if (l.max_cost !== undefined) priceForCostLimit(model, resume.settings.model_prices);
      // a key given as undefined clears that limit; a given tool_limits replaces the map
      live.limits = { ...live.limits, ...l, tool_limits: { ...(l.tool_limits ?? live.limits.tool_limits) } };
    },
    send: requests.send,
    lab: () => project.view(),
    async close() {
      closed = true;
      requests.idle.cancel();
      await x.tools.ready;
      await closeServices(p.services);
      await project.close();
      live.lease?.release();
      store.close();
    },
  };
}

/** The task tree as the session shows it: rows, `/tree`, the status bar's budget line, stopping a sub-agent. */
function treeViews(sessionId: string, resume: Resumed, tree: SessionTree, closed: () => boolean) {
  const { trees, agentMode } = resume;
  const treeView = () => {
    const root = trees.get(sessionId);
    return {
      agents: agentViews(trees.nodes(sessionId), trees.reviewNotes(sessionId)),
      resource_usage: resourceUsage(root, root ? tree.usageOrNone() : undefined),
    };
  };
  return {
    tree: () => ({ root: trees.get(sessionId), agents: trees.nodes(sessionId) }),
    usage: () => tree.usage(),
    treeView,
    treeText: () => {
      const v = treeView();
      const rootValidation = parseJson<ValidationResult>(trees.get(sessionId)?.validation ?? null);
      return renderTree(sessionId, agentMode, v.agents, v.resource_usage, rootValidation);
    },
    // a front end that quits during a turn still asks when the turn's stream ends: nothing to say then
    budgetLine: () => (closed() ? undefined : budgetLine(treeView().resource_usage)),
    stopAgent: (id: string): StopOutcome => {
      const t = runningAgent(trees, sessionId, id);
      if ('refused' in t) return t;
      // registered in this process only while its batch runs
      return tree.engine.stop(t.node.id) ? { stopped: t.node.id } : { refused: `sub-agent ${t.node.id.slice(0, 8)} is not running here` };
    },
  };
}

/** --estimate: the first LLM call of `prompt` prepared and counted on the open session, nothing sent. */
async function estimate(
  p: SessionParts,
  x: { resume: Resumed; host: RequestHost; tools: AttachedTools },
  prompt: string,
  signal?: AbortSignal,
) {
  checkPromptSize(prompt);
  await x.tools.ready;
  const { settings } = x.resume;
  const { live } = p;
  const model = p.provider.endpoint.model;
  return estimateRequest(
    prompt,
    {
      sessionId: p.sessionId,
      model,
      graph: x.host.graph,
      registry: p.registry,
      counter: p.provider.counter,
      context: { limitK: p.provider.limitK, strategy: settings.context_strategy, fullTurns: settings.history_full_turns },
      topology: (s) => p.project.topology(s),
      mode: live.mode,
      limits: live.limits,
      price: priceOf(model, settings.model_prices),
      maxOutputTokens: settings.max_tokens ?? (live.limits.max_cost !== undefined ? COST_OUTPUT_CAP : undefined),
    },
    signal ?? new AbortController().signal,
  );
}

/** send(): one request at a time; between requests the idle collector may run. */
function oneRequestAtATime(host: RequestHost) {
  const repair = new HistoryRepair(host);
  const idle = new IdleCollector();
  let busy = false;
  const send = (prompt: string, sendOpts?: { signal?: AbortSignal }): AsyncIterable<AgentEvent> => {
    if (busy) throw new UsageError('a request is already running in this session');
    checkPromptSize(prompt);
    busy = true;
    idle.cancel();
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
        idle.schedule();
        q.end();
      });
    return q;
  };
  return { send, idle };
}

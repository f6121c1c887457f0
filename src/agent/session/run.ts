/**
 * One request of an AgentSession: its abort and --max-time signal, opening the project
 * (init is always the first event, even when that fails), running the graph, the errors
 * a request ends with, the usage it records and the closing `done` event.
 */
import { HumanMessage } from '@langchain/core/messages';
import type { Settings } from '../../config/schema.js';
import type { RequestLimits } from '../../core/api.js';
import type { AgentEvent, AgentMode, RunStats, StoppedReason } from '../../core/events.js';
import type { CopilotMode } from '../../core/modes.js';
import type { Logger } from '../../log.js';
import type { ProjectScope } from '../../gns3/types.js';
import type { EventQueue } from '../../core/queue.js';
import type { SessionStore } from '../../sessions/store.js';
import type { AgentGraph } from '../graph.js';
import { danglingToolCalls, toolMessage } from '../history.js';
import { runConfig, stopReasonOf, type RunControl } from '../graph-deps.js';
import { requestInput, type AgentStateType } from '../state.js';
import { describeLimits, recursionLimitFor } from '../limits.js';
import { costUsd, roundUsd } from '../../core/pricing.js';
import { RequestCounters } from '../request-counters.js';
import { CostMeter } from '../cost-limit.js';
import { abortable } from '../stream-guard.js';
import { shareSignal } from '../../core/shared-signal.js';
import { resultJson } from '../../tools/registry.js';
import { recordRepair } from '../../sessions/repair.js';
import { ControllerError, CopilotError, ExitCode, errorMessage, errorTypeOf } from '../../errors.js';
import type { SessionProject } from './project.js';
import { turnDrift } from './turn-drift.js';

/** What a request needs from its session. */
/** `GET /v2/projects ` (with its trailing space), or nothing when no call was sent yet */
const callOf = (call: string | undefined): string => (call ? `${call} ` : '');

export interface RequestHost {
  sessionId: string;
  agentMode: AgentMode;
  endpoint: { model: string; provider: string };
  modelPrices: Settings['model_prices'];
  /** an approver exists (TUI): blocked approvals are the user's answer, not an error */
  hasApprover: boolean;
  log: Logger;
  store: SessionStore;
  graph: AgentGraph;
  project: SessionProject;
  mode(): CopilotMode;
  limits(): RequestLimits;
  /** the user's MCP servers: their notices go out with the request */
  mcpReady: Promise<{ notices: string[] } | undefined> | undefined;
  /** the user's MCP servers still connecting when a request starts */
  mcpConnecting?: ReadonlySet<string>;
  /** the root run while a request runs (the sub-agent tree reads it) */
  setCurrent(run: RunControl | undefined): void;
  /** run fields the sub-agent tree adds to the root's run (its budget) */
  runExtras(): Partial<RunControl>;
  /** creates the session row (and takes its lease) before the first request's graph runs; no-op once it exists */
  ensureRow(prompt: string): void;
  /** whether the row exists (usage is recorded only then) */
  rowCreated(): boolean;
  /**
   * While the request runs: stop requests from another process (`sessions stop`).
   * `stopRoot` ends the whole request; `notice` says what was stopped. Returns the unwatch.
   */
  watchStops?(stopRoot: () => void, notice: (message: string) => void): () => void;
}

/**
 * A process killed mid-turn leaves tool calls without results: answer them so the history is valid.
 * Requests in this process always end with a valid history (nodes turn aborts into state), so only
 * the first request — a resumed session — and one after a failed request need the check; skipping it
 * saves loading the whole checkpoint per turn.
 */
export class HistoryRepair {
  private checked = false;
  constructor(private readonly host: Pick<RequestHost, 'sessionId' | 'graph' | 'store' | 'log' | 'limits'>) {}

  /** the next request checks again (this one failed) */
  invalidate(): void {
    this.checked = false;
  }

  /** `run`: the request about to start (the repaired state is routed like its own limit node's) */
  async run(run: RunControl): Promise<void> {
    if (this.checked) return;
    this.checked = true;
    const { graph, sessionId, log, store } = this.host;
    const config = runConfig(sessionId, run, recursionLimitFor(this.host.limits()));
    const snap = await graph.getState(config);
    const messages = (snap.values as AgentStateType | undefined)?.messages ?? [];
    const dangling = danglingToolCalls(messages);
    if (dangling.length === 0) return;
    log.warn('previous run was interrupted; marking its pending tool calls as aborted', { count: dangling.length });
    const repaired = dangling.map((c) =>
      toolMessage(c, {
        status: 'aborted',
        output: resultJson('aborted', 'aborted: the previous run was interrupted before this tool call finished'),
      }),
    );
    await graph.updateState(config, { messages: repaired, reached: 'aborted' }, 'limit');
    recordRepair(store, sessionId, [...messages, ...repaired]);
  }
}

export async function runRequest(
  host: RequestHost,
  repair: HistoryRepair,
  prompt: string,
  q: EventQueue<AgentEvent>,
  userSignal?: AbortSignal,
): Promise<void> {
  const { sessionId, store, graph, log, endpoint } = host;
  const t0 = performance.now();
  const waitingFor = [...(host.mcpConnecting ?? [])];
  if (waitingFor.length > 0) q.push({ type: 'notice', message: mcpWaitNotice(waitingFor) });
  const mcp = await host.mcpReady;
  const limits = host.limits();
  const reqLimits = { ...limits, tool_limits: { ...limits.tool_limits } };
  const mode = host.mode();
  const { ac, release } = requestAbort(userSignal, reqLimits.max_time);
  const run = rootRun(q, ac.signal, reqLimits);
  host.setCurrent(run);
  const init = (projectId: string | null) => initEvent(host, mode, projectId);
  let stopped: StoppedReason = 'done';
  let final: AgentStateType | undefined;
  let unwatch: (() => void) | undefined;
  let project: ProjectScope | undefined;
  try {
    const storedProjectId = store.get(sessionId)?.project_id ?? null;
    try {
      project = await openProject(host, ac.signal, reqLimits.max_time);
    } catch (err) {
      // init still comes first, so stream consumers always see which session failed
      q.push(init(null));
      throw err;
    }
    const projectId = project?.projectId ?? storedProjectId;
    // The row exists before the graph runs, so a run killed mid-turn can be continued.
    host.ensureRow(prompt);
    unwatch = host.watchStops?.(
      () => ac.abort('aborted'),
      (message) => q.push({ type: 'notice', message }),
    );
    Object.assign(run, host.runExtras());
    if (project) store.setProject(sessionId, project.projectId, project.projectName);
    q.push(init(projectId));
    for (const message of mcp?.notices.splice(0) ?? []) q.push({ type: 'notice', message });
    log.info('request', {
      session_id: sessionId,
      mode,
      limits: describeLimits(reqLimits),
      model: endpoint.model,
      provider: endpoint.provider,
    });
    await repair.run(run);
    // the lab changed since the last request, not by the copilot: the model reads it first
    const drift = project ? await turnDrift(host).start(ac.signal) : undefined;
    if (drift) q.push(drift.event);
    const input = requestInput(new HumanMessage(prompt), reqLimits, mode, drift ? [drift.note] : []);
    const stream = await graph.stream(input, { ...runConfig(sessionId, run, recursionLimitFor(reqLimits)), streamMode: 'values' });
    for await (const values of stream) final = values;
    stopped = final?.reached ?? 'done';
    if (ac.signal.aborted && stopped === 'done') stopped = stopReasonOf(ac.signal);
    for (const e of endErrors(stopped, reqLimits, run.approvalBlocked, host.hasApprover)) q.push(e);
  } catch (err) {
    repair.invalidate();
    ({ stopped, final } = await failedRequest(host, err, ac.signal, q, final));
  } finally {
    unwatch?.();
    release();
    host.setCurrent(undefined);
    for (const message of mcp?.notices.splice(0) ?? []) q.push({ type: 'notice', message });
  }
  // what the lab looks like after this request's own calls: the next request tells only the changes after it
  if (project && host.rowCreated()) await turnDrift(host).end();
  const stats = runStats(final, run.counters, performance.now() - t0, endpoint.model, host.modelPrices);
  recordUsage(host, final, stats);
  q.push({ type: 'done', stopped_reason: stopped, stats });
}

/** The request's abort: the user's, and --max-time's; `release` drops the timer and the user's listener. */
function requestAbort(userSignal: AbortSignal | undefined, maxTime: number | undefined) {
  const ac = new AbortController();
  shareSignal(ac.signal);
  const onUserAbort = () => ac.abort('aborted');
  if (userSignal?.aborted) ac.abort('aborted');
  userSignal?.addEventListener('abort', onUserAbort, { once: true });
  const timer = maxTime ? setTimeout(() => ac.abort('max_time'), maxTime * 1000) : undefined;
  const release = () => {
    if (timer) clearTimeout(timer);
    userSignal?.removeEventListener('abort', onUserAbort);
  };
  return { ac, release };
}

/** The root's run: its events, signal, counters (with the --max-cost meter) and --max-time deadline. */
function rootRun(q: EventQueue<AgentEvent>, signal: AbortSignal, limits: RequestLimits): RunControl {
  return {
    emit: (e) => q.push(e),
    signal,
    approvalBlocked: 0,
    counters: new RequestCounters(limits.max_cost !== undefined ? new CostMeter(limits.max_cost) : undefined),
    ...(limits.max_time ? { deadline: Date.now() + limits.max_time * 1000 } : {}),
  };
}

function initEvent(host: RequestHost, mode: CopilotMode, projectId: string | null): AgentEvent {
  return { type: 'init', session_id: host.sessionId, project_id: projectId, mode, agent_mode: host.agentMode, model: host.endpoint.model };
}

/** Opens the session's project, if it has one; --max-time covers the controller probe too. */
async function openProject(host: RequestHost, signal: AbortSignal, maxTime: number | undefined): Promise<ProjectScope | undefined> {
  if (!host.project.has()) return undefined;
  return abortable(host.project.open(), signal, () =>
    signal.reason === 'max_time'
      ? new ControllerError(`the GNS3 controller did not answer ${callOf(host.project.waitingOn())}within --max-time (${maxTime} s)`)
      : new CopilotError('aborted by the user', ExitCode.Aborted),
  );
}

/** A request that threw: its error event, and the state as far as it got (the stats read it; `streamed` when unreadable). */
async function failedRequest(
  host: RequestHost,
  err: unknown,
  signal: AbortSignal,
  q: EventQueue<AgentEvent>,
  streamed: AgentStateType | undefined,
) {
  const stopped: StoppedReason = signal.aborted ? stopReasonOf(signal) : 'error';
  const type = signal.aborted && stopped === 'aborted' ? 'aborted' : errorTypeOf(err);
  host.log.error('request failed', { error: errorMessage(err), type });
  q.push({ type: 'error', error: { type, message: errorMessage(err).split('\n')[0] ?? 'error' } });
  let final = streamed;
  try {
    final = (await host.graph.getState({ configurable: { thread_id: host.sessionId } })).values as AgentStateType;
  } catch {
    // state unreadable: the stats read what the stream gave (zero if nothing)
  }
  return { stopped, final };
}

/** The error events a request that ran to its end still reports. */
function endErrors(stopped: StoppedReason, limits: RequestLimits, approvalBlocked: number, hasApprover: boolean): AgentEvent[] {
  const out: AgentEvent[] = [];
  if (stopped === 'aborted') out.push({ type: 'error', error: { type: 'aborted', message: 'aborted by the user' } });
  else if (stopped !== 'done' && limits.on_limit === 'fail')
    out.push({ type: 'error', error: { type: 'limit', message: `limit reached: ${stopped} (--on-limit fail)` } });
  if (approvalBlocked > 0 && !hasApprover)
    out.push({
      type: 'error',
      error: {
        type: 'approval',
        message: `${approvalBlocked} tool call(s) needed approval that this run cannot give: rerun with --approve config (or --approve all)`,
      },
    });
  return out;
}

/** The request's totals over the root and every sub-agent; `iterations` is the root's own loop. */
function runStats(
  final: AgentStateType | undefined,
  counters: RequestCounters,
  durationMs: number,
  model: string,
  prices: Settings['model_prices'],
): RunStats {
  const t = counters.totals();
  const byAgent = counters.byAgent();
  return {
    iterations: final?.llm_calls ?? 0,
    llm_calls: t.llm_calls,
    tool_calls: t.tool_calls,
    input_tokens: t.input_tokens,
    output_tokens: t.output_tokens,
    duration_ms: Math.round(durationMs),
    cost_usd: roundUsd(costUsd(model, t, prices)),
    ...(Object.keys(byAgent).length ? { by_agent: byAgent, by_kind: counters.byKind() } : {}),
  };
}

function recordUsage(host: RequestHost, final: AgentStateType | undefined, stats: RunStats): void {
  if (!host.rowCreated()) return;
  const { store, sessionId } = host;
  try {
    store.recordRequest(sessionId, {
      message_count: final?.messages?.length ?? store.get(sessionId)?.message_count ?? 0,
      llm_calls: stats.llm_calls,
      input_tokens: stats.input_tokens,
      output_tokens: stats.output_tokens,
      model: host.endpoint.model,
    });
    store.pruneCheckpoints(sessionId);
    store.saver.flushTokenCounts(sessionId);
  } catch (err) {
    host.log.warn('could not record session usage', { error: errorMessage(err) });
  }
}

/** Said once when a request has to wait for the user's MCP servers before the model can be shown their tools. */
export function mcpWaitNotice(names: string[]): string {
  return `waiting for MCP server${names.length === 1 ? '' : 's'} ${names.join(', ')} to connect (each up to its timeout)…`;
}

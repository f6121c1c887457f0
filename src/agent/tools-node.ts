/**
 * The graph's tools node: answers every pending call of the last AI message through
 * the one dispatch (src/tools/dispatch.ts: gate, approvals, parallel execution) and
 * turns what happens into events and ToolMessages. `runToolCalls` is that dispatch for
 * any caller of a run: the tools node's agents and the Validators (src/agent/tree/validator.ts)
 * alike, so every tool call of a request counts against its limits.
 */
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import type { RequestLimits } from '../core/api.js';
import type { Caller } from '../core/caller.js';
import type { StoppedReason } from '../core/events.js';
import type { CopilotMode } from '../core/modes.js';
import type { AgentStateType, AgentStateUpdate } from './state.js';
import { executeTool, preparer } from '../tools/registry.js';
import { dispatchCalls, type DispatchCall, type DispatchEvents, type DispatchOutcome } from '../tools/dispatch.js';
import { LIMIT_DEFAULTS, enforcedLimits, limitEventMessage, toolRetries } from './limits.js';
import { mayRetry, runWithRetries, sendsConfiguration } from '../tools/retry.js';
import { runOf, stopReasonOf, runCaller, type GraphDeps, type RunControl } from './graph-deps.js';
import { danglingToolCalls, toolMessage } from './history.js';
import { agentKey } from './request-counters.js';
import { cliRefusalText } from './refusal-text.js';
import { askRaise, sameLimits, toolRaiseTarget } from './limit-raise.js';
import { limitGroupOf, type ToolResult } from '../tools/types.js';
import { cutResult } from './result-cut.js';

/** What running a batch of a run's tool calls needs from the session. */
export type ToolRunDeps = Pick<
  GraphDeps,
  'registry' | 'approval' | 'limitRaiser' | 'toolContext' | 'checkpoints' | 'previewer' | 'log' | 'maxOutputChars' | 'results'
>;

/** One batch: who calls, in which mode, under which limits (`exceeded`: soft limits already reported). */
export interface ToolBatch {
  caller: Caller;
  mode: CopilotMode;
  limits: RequestLimits;
  exceeded: readonly StoppedReason[];
}

export function toolsNode(deps: GraphDeps): (state: AgentStateType, config: LangGraphRunnableConfig) => Promise<AgentStateUpdate> {
  return async (state, config) => {
    const run = runOf(config);
    const calls = danglingToolCalls(state.messages);
    // a raise the user gave another run of this request holds here too
    let limits = { ...state.limits, ...run.counters.raised };
    const out = await runToolCalls(deps, run, calls, { caller: runCaller(run), mode: state.mode, limits, exceeded: state.exceeded });
    if (out.limits) limits = { ...limits, ...run.counters.raised };
    run.approvalBlocked += out.approvalBlocked;
    run.counters.toolCalls(agentKey(run), out.admitted);

    const update: AgentStateUpdate = {
      ...(Object.keys(run.counters.raised).length ? { limits } : {}),
      messages: calls.map((c, i) => toolMessage(c, out.results[i]!)),
      exceeded: [...state.exceeded, ...out.crossed.filter((c) => !state.exceeded.includes(c))],
    };
    if (out.limitHit) {
      update.reached = out.limitHit;
      const action = state.limits.on_limit === 'fail' ? 'stop' : 'wrap_up';
      run.emit({ type: 'limit', reason: out.limitHit, action, message: limitEventMessage(out.limitHit, action, state.limits) });
      deps.log.warn('Tool call limit exceeded', {
        reason: out.limitHit,
        tool_calls: run.counters.count,
        tool_counts: run.counters.counts,
        refused: out.results.filter((r) => r.status === 'limit').length,
      });
    }
    if (run.signal.aborted) update.reached = stopReasonOf(run.signal);
    return update;
  };
}

/**
 * A batch of a run's tool calls through the one dispatch, counted in the run's request
 * (its counters: the limits and raises every run of the request shares), its events on
 * `run.emit`. The caller books what was admitted and blocked.
 */
export async function runToolCalls(
  deps: ToolRunDeps,
  run: RunControl,
  calls: readonly DispatchCall[],
  b: ToolBatch,
): Promise<DispatchOutcome> {
  // results stored whole: no command output is cut by characters, the token cut (cutResult) decides
  const ctx = { ...deps.toolContext(run.signal), caller: b.caller, mode: b.mode, ...(deps.results ? { wholeOutput: true } : {}) };
  const bounded = tokenBound(deps, b.caller);
  // the events carry each tool's result as the tool gave it (scripts parse --json's outputs);
  // only the history gets the token cut
  const whole = new Map<string, ToolResult>();
  const shown = (call: DispatchCall, r: ToolResult): ToolResult => whole.get(call.id) ?? r;
  return dispatchCalls(calls, {
    tools: deps.registry,
    approval: deps.approval,
    mode: b.mode,
    caller: b.caller,
    // under on_limit continue the gate enforces the hard ceilings; crossing the user's limits is only reported
    limits: enforcedLimits(b.limits),
    ...(b.limits.on_limit === 'continue' ? { softLimits: b.limits } : {}),
    ...(deps.limitRaiser && b.limits.on_limit !== 'continue' ? { raise: limitRaise(deps, run) } : {}),
    counter: run.counters,
    signal: run.signal,
    stopped: () => (run.signal.aborted ? stopReasonOf(run.signal) : undefined),
    wordRefusal: cliRefusalText,
    ...(deps.checkpoints ? { checkpoints: deps.checkpoints } : {}),
    ...(deps.previewer ? { previewer: deps.previewer } : {}),
    maxParallel: b.limits.max_parallel_tools ?? LIMIT_DEFAULTS.max_parallel_tools,
    prepare: preparer((_def, call) => ({ ...ctx, callId: call.id }), deps.maxOutputChars),
    execute: async (def, call) => {
      const r = await runWithRetries(() => executeTool(def, call.args, { ...ctx, callId: call.id }, deps.maxOutputChars), {
        retries: toolRetries(b.limits),
        // a config push that may have reached its device is never sent again
        retryable: (res) =>
          mayRetry(res, { sendsConfig: sendsConfiguration(def, call.args), retryOnToolError: b.limits.retry_on_tool_error === true }),
        signal: run.signal,
        onRetry: (info) => {
          deps.log.warn('tool call failed transiently, retrying', { tool: call.name, ...info });
          run.emit({ type: 'tool_retry', id: call.id, name: call.name, ...info });
        },
      });
      whole.set(call.id, r);
      return bounded(call, r);
    },
    events: batchEvents(deps, run, b, shown),
  });
}

/** The batch's dispatch events as the run's events; `shown` gives the result the events carry. */
function batchEvents(
  deps: ToolRunDeps,
  run: RunControl,
  b: ToolBatch,
  shown: (call: DispatchCall, r: ToolResult) => ToolResult,
): DispatchEvents {
  const toolEnd = (call: DispatchCall, r: ToolResult, ms: number) =>
    run.emit({
      type: 'tool_end',
      id: call.id,
      name: call.name,
      status: r.status,
      duration_ms: ms,
      output: r.output,
      display: r.display,
      ...(r.code ? { code: r.code } : {}),
    });
  return {
    approval: (call, need, preview) =>
      run.emit({ type: 'approval', id: call.id, name: call.name, args: call.args, why: need.why, ...(preview ? { preview } : {}) }),
    settled: (call, settled) => toolEnd(call, shown(call, settled), 0),
    checkpoint: (call, c) =>
      run.emit({
        type: 'checkpoint',
        id: call.id,
        name: call.name,
        device: c.device,
        ...(c.error ? { error: c.error } : {}),
        ...(c.checkpoint !== undefined ? { checkpoint_id: c.checkpoint } : {}),
      }),
    start: (call) => run.emit({ type: 'tool_start', id: call.id, name: call.name }),
    crossed: (call, stop) => {
      if (b.exceeded.includes(stop)) return;
      run.emit({ type: 'limit', reason: stop, action: 'continue', message: limitEventMessage(stop, 'continue', b.limits) });
      deps.log.warn('limit crossed (on_limit continue)', { reason: stop, tool: call.name });
    },
    end: (call, ended, ms) => {
      const r = shown(call, ended);
      if (r.status === 'error') deps.log.error('tool call failed', { tool: call.name, id: call.id, output: r.output.slice(0, 300) });
      toolEnd(call, r, ms);
      if (r.verification) run.emit({ type: 'verification', id: call.id, name: call.name, ...r.verification });
    },
  };
}

/** A result as it enters the history: cut to tool_result_tokens, its whole stored for the calling agent. */
function tokenBound(deps: ToolRunDeps, caller: Caller) {
  const results = deps.results;
  // a page of a stored result is bounded by the reader itself, never cut and stored again
  return (call: DispatchCall, r: ToolResult) =>
    results && call.name !== 'read_context_ref' ? cutResult(r, call, caller.agentId, results) : r;
}

/** The TUI asks whether to raise the count limit a refused call hit (in turn with every other question). */
function limitRaise(deps: ToolRunDeps, run: RunControl) {
  const raiser = deps.limitRaiser!;
  const groupOf = (n: string) => {
    const d = deps.registry.get(n);
    return d ? limitGroupOf(d) : undefined;
  };
  return (call: DispatchCall, stop: Parameters<typeof toolRaiseTarget>[0], now: RequestLimits) =>
    raiser.turn(async () => {
      if (run.signal.aborted) return undefined;
      // a parallel run of this request raised a limit while this one waited: judge the call under it first
      const shared = { ...now, ...run.counters.raised };
      if (!sameLimits(shared, now)) return shared;
      const group = groupOf(call.name);
      const t = group ? toolRaiseTarget(stop, call.name, group, now, run.counters, groupOf) : undefined;
      if (!t) return undefined;
      const next = await askRaise(raiser, t, now, run, deps.log);
      if (next) Object.assign(run.counters.raised, t.patch);
      return next;
    }, run.signal);
}

/**
 * Everything decided before an agent's LLM call (docs/ARCHITECTURE.md, Limits and context):
 * whether the user raises --max-iterations first, the tree budget's answer, whether the call
 * offers tools and why it is the run's last, the context it sends, and the --max-cost
 * reservation of its worst case (the user may raise the limit, else a tools-free wrap-up may
 * still fit). The answer is a plan for the call, or the update of a call that is not made.
 */
import type { BaseMessage } from '@langchain/core/messages';
import type { RequestLimits } from '../core/api.js';
import type { Caller } from '../core/caller.js';
import type { StoppedReason } from '../core/events.js';
import type { CopilotMode } from '../core/modes.js';
import type { ToolSchema } from '../tools/registry.js';
import type { AgentStateType, AgentStateUpdate } from './state.js';
import { prepareContext, toolSchemaTokens, type ContextPlan } from './context.js';
import { maskOldResults } from './history-mask.js';
import { logContext, logPreparing } from './context-log.js';
import { runCaller, type GraphDeps, type InjectedTopology, type RunControl } from './graph-deps.js';
import { callPlan, wrapUpInstruction } from './limits.js';
import { askRaise, costRaiseTarget, iterationRaiseTarget } from './limit-raise.js';
import { reportLimit } from './limit-report.js';
import { MeteredCall, runScope } from './metered-call.js';
import { summarizerFor } from './summarizer.js';
import { roundUsd } from '../core/pricing.js';
import { errorMessage } from '../errors.js';

/** One planned call: its metered call (reserved), whether it offers tools, the context it sends. */
export interface PlannedCall {
  call: MeteredCall;
  tools: boolean;
  schemas: ToolSchema[];
  context: ContextPlan;
  /** why this is the run's last call (the stopped_reason it ends with), null while it is not */
  limit: StoppedReason | null;
  exceeded: StoppedReason[];
  /** limits the user raised before this call */
  raisedLimits?: RequestLimits;
  caller: Caller;
  /** prepares this call's context again (after the provider's overflow: `ratioScale` 0.5) */
  prepare(ratioScale?: number): Promise<ContextPlan>;
}

export type CallPlanning = { made: true; plan: PlannedCall } | { made: false; update: AgentStateUpdate };

/** The tool schemas a caller is shown and their tokens, counted once per mode, tool set and review state. */
export type SchemaTokens = (mode: CopilotMode, caller: Caller, withTools: boolean) => { schemas: ToolSchema[]; toolsTokens: number };

export function schemaTokens(deps: Pick<GraphDeps, 'registry' | 'counter'>): SchemaTokens {
  const cache = new Map<string, number>();
  return (mode, caller, withTools) => {
    const schemas = withTools ? deps.registry.schemas(mode, caller) : [];
    const key = withTools
      ? `${caller.tools ? `${mode}:${[...caller.tools].join(',')}` : mode}${caller.pendingReviews?.length ? ':review' : ''}`
      : '-';
    let n = cache.get(key);
    if (n === undefined) cache.set(key, (n = toolSchemaTokens(deps.counter, schemas)));
    return { schemas, toolsTokens: n };
  };
}

export async function planCall(deps: GraphDeps, state: AgentStateType, run: RunControl, tokens: SchemaTokens): Promise<CallPlanning> {
  let raisedLimits = await raiseIterations(deps, state, run);
  const plan = callPlan(raisedLimits ? { ...state, limits: raisedLimits } : state);
  // the tree's budget (recursive): a run's own wrap-up is an ordinary call to it
  const call = new MeteredCall(runScope(run, deps.cost.price), 'agent');
  const budget = call.reserveCall();
  if (budget === 'denied') {
    if (!state.reached) reportLimit(deps.log, run, state, 'budget', 'stop');
    return { made: false, update: { reached: state.reached ?? 'budget', tools_offered: false } };
  }
  // 'final': the tree budget is gone and this is the root's reserved final call, without tools
  let tools = plan.tools && budget === 'ok';
  let limit = state.reached ?? (budget === 'final' ? 'budget' : plan.last);
  if (limit && !state.reached) reportLimit(deps.log, run, state, limit, 'wrap_up');
  const exceeded = crossedIterations(deps, state, run);

  await deps.counter.ready();
  const caller = runCaller(run);
  const topo = await topologyOf(deps, run);
  const prepare = (withTools: boolean, last: StoppedReason | null, ratioScale?: number) =>
    prepareFor(deps, state, run, { caller, topo, withTools, last, tokens, ...(ratioScale ? { ratioScale } : {}) });
  let prepared = await prepare(tools, limit);

  // --max-cost: reserve the call's worst case; one that would cross is not made
  const meter = call.meter;
  const worst = () => call.worstUsd(prepared.context.tokens + prepared.context.toolsTokens, deps.cost.maxOutputTokens);
  let fits = call.reserveCost(worst());
  const raiser = deps.limitRaiser;
  if (meter && !fits && raiser && !state.reached) {
    // the TUI asks whether to raise the cost limit before the call is given up
    fits = await raiser.turn(async () => {
      if (run.signal.aborted) return false;
      // a parallel run's raise while this one waited for its turn may be enough
      if (call.reserveCost(worst())) return true;
      const t = costRaiseTarget(meter, worst());
      const raised = t ? await askRaise(raiser, t, raisedLimits ?? state.limits, run, deps.log) : undefined;
      if (!raised) return false;
      meter.raise(t!.raise_to);
      raisedLimits = raised;
      return call.reserveCost(worst());
    }, run.signal);
  }
  if (meter && !fits && tools && state.limits.on_limit !== 'fail') {
    // the call with tools would cross: a tools-free answer may still fit
    tools = false;
    limit ??= 'max_cost';
    prepared = await prepare(false, limit);
    fits = call.reserveCost(worst());
    if (fits && limit === 'max_cost') reportLimit(deps.log, run, state, 'max_cost', 'wrap_up');
  }
  if (meter && !fits) {
    call.cancel();
    if (state.reached !== 'max_cost') reportLimit(deps.log, run, state, 'max_cost', 'stop');
    deps.log.warn('LLM call not made: its worst case would cross --max-cost', {
      worst_usd: roundUsd(worst()),
      spent_usd: roundUsd(meter.spent),
      max_cost: meter.max,
    });
    const summary = prepared.context.summary ? { summary: prepared.context.summary } : {};
    return { made: false, update: { reached: 'max_cost', tools_offered: false, exceeded, ...summary } };
  }
  const planned: PlannedCall = {
    call,
    tools,
    ...prepared,
    limit,
    exceeded,
    ...(raisedLimits ? { raisedLimits } : {}),
    caller,
    prepare: async (ratioScale) => (planned.context = (await prepare(tools, limit, ratioScale)).context),
  };
  return { made: true, plan: planned };
}

/** The TUI asks before the last allowed iteration whether to raise --max-iterations: the raised limits, if it did. */
async function raiseIterations(deps: GraphDeps, state: AgentStateType, run: RunControl): Promise<RequestLimits | undefined> {
  const raiser = deps.limitRaiser;
  if (callPlan(state).last !== 'max_iterations' || state.reached || !raiser) return undefined;
  const t = iterationRaiseTarget(state.limits, state.llm_calls + 1);
  return t ? await raiser.turn(() => askRaise(raiser, t, state.limits, run, deps.log), run.signal) : undefined;
}

/** on_limit continue: the iterations crossed softly, said once. */
function crossedIterations(deps: GraphDeps, state: AgentStateType, run: RunControl): StoppedReason[] {
  const crossed =
    state.limits.on_limit === 'continue' && state.llm_calls + 1 > state.limits.max_iterations && !state.exceeded.includes('max_iterations');
  if (!crossed) return state.exceeded;
  reportLimit(deps.log, run, state, 'max_iterations', 'continue');
  return [...state.exceeded, 'max_iterations'];
}

async function topologyOf(deps: GraphDeps, run: RunControl): Promise<InjectedTopology | undefined> {
  try {
    const topo = await deps.topology(run.signal);
    for (const message of topo?.notices ?? []) run.emit({ type: 'notice', message });
    return topo;
  } catch (err) {
    deps.log.warn('topology refresh failed', { error: errorMessage(err) });
    return undefined;
  }
}

/** The context of one call (with or without tools, under the wrap-up instruction of `last`), said in a `context` event. */
async function prepareFor(
  deps: GraphDeps,
  state: AgentStateType,
  run: RunControl,
  o: {
    caller: Caller;
    topo: InjectedTopology | undefined;
    withTools: boolean;
    last: StoppedReason | null;
    tokens: SchemaTokens;
    ratioScale?: number;
  },
): Promise<{ schemas: ToolSchema[]; context: ContextPlan }> {
  const { schemas, toolsTokens } = o.tokens(state.mode, o.caller, o.withTools);
  const system = deps.prompts.system(state.mode, o.topo?.text) + (o.last ? wrapUpInstruction(o.last) : '');
  logPreparing(deps.log, state.messages.length);
  const context = await prepareContext(
    { system, history: state.messages, summary: state.summary, toolsTokens },
    {
      limitK: deps.context.limitK,
      strategy: deps.context.strategy,
      counter: deps.counter,
      ...(deps.context.summarize ? { summarizer: summarizerFor(deps, run) } : {}),
      ...(o.ratioScale ? { ratioScale: o.ratioScale } : {}),
      ...maskFor(deps, o.caller),
    },
  );
  run.emit({
    type: 'context',
    tokens: context.tokens,
    tools_tokens: context.toolsTokens,
    limit: context.limit,
    percent: context.percent,
    trimmed: context.trimmed,
    llm_call: state.llm_calls + 1,
  });
  logContext(deps.log, context, {
    strategy: deps.context.strategy,
    limitK: deps.context.limitK,
    topology: o.topo,
    historyMessages: state.messages.length,
    finalPass: !o.withTools,
  });
  return { schemas, context };
}

/** Older tool results as stubs whose whole the calling agent reads back (the refs of its cut results): without a ref store, none. */
function maskFor(deps: GraphDeps, caller: Caller): { mask?: (history: BaseMessage[]) => BaseMessage[] } {
  const results = deps.results;
  const fullTurns = deps.context.fullTurns ?? 0;
  if (!results || fullTurns <= 0) return {};
  return {
    mask: (history) => maskOldResults(history, { fullTurns, counter: deps.counter, store: (ref) => results.store(caller.agentId, ref) }),
  };
}

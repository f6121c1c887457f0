/**
 * The graph's tools node: answers every pending call of the last AI message. The gate
 * (src/tools/gate.ts) decides each call; this node only asks the approver and executes
 * the allowed calls, in parallel up to max_parallel_tools.
 */
import type { StoppedReason } from '../core/events.js';
import type { AgentStateType, AgentStateUpdate } from './state.js';
import { executeTool, resultJson, type ToolResult } from '../tools/registry.js';
import { assessCall, type GatePolicy } from '../tools/gate.js';
import { askApproval } from '../tools/approval.js';
import { LIMIT_DEFAULTS, enforcedLimits, limitEventMessage, toolRetries } from './limits.js';
import { runLimited } from '../devices/runner.js';
import { runWithRetries } from '../tools/retry.js';
import { stopReasonOf, type GraphDeps } from './graph-deps.js';
import { danglingToolCalls, toolMessage, type ToolCall } from './history.js';

export function toolsNode(deps: GraphDeps): (state: AgentStateType) => Promise<AgentStateUpdate> {
  return async (state) => {
    const run = deps.run();
    const calls = danglingToolCalls(state.messages);
    const results: (ToolResult | undefined)[] = new Array<ToolResult | undefined>(calls.length);
    let count = state.tool_calls_count;
    const counts = { ...state.tool_counts };
    let limitHit: StoppedReason | null = null;
    const toRun: { i: number; call: ToolCall }[] = [];
    const ctx = deps.toolContext(run.signal);

    const policy: GatePolicy = { tools: deps.registry, approval: deps.approval, ...(run.tools ? { frozen: run.tools } : {}) };

    // under on_limit continue the gate enforces the hard ceilings; the user's limits are only reported as crossed
    const enforced = enforcedLimits(state.limits);
    const exceeded = [...state.exceeded];
    for (const [i, call] of calls.entries()) {
      const stopped = run.signal.aborted ? stopReasonOf(run.signal) : undefined;
      const gateState = { mode: state.mode, limits: enforced, count, counts, ...(stopped ? { stopped } : {}) };
      let verdict = assessCall(call, gateState, policy);
      if (verdict.kind === 'ask') {
        run.emit({ type: 'approval', id: call.id, name: call.name, args: call.args });
        const answer = await askApproval(call, deps.approval, run.signal);
        verdict =
          answer.kind === 'allowed' ? { kind: 'run' } : { kind: 'blocked', status: 'blocked', reason: answer.reason, needsApproval: true };
      }
      if (verdict.kind === 'blocked') {
        if (verdict.needsApproval) run.approvalBlocked++;
        results[i] = { status: verdict.status, output: resultJson(verdict.status, verdict.reason) };
        continue;
      }
      if (verdict.kind === 'limit') {
        results[i] = { status: 'limit', output: resultJson('limit', verdict.reason) };
        limitHit ??= verdict.stop;
        continue;
      }
      if (enforced !== state.limits) {
        const strict = assessCall(call, { ...gateState, limits: state.limits }, policy);
        if (strict.kind === 'limit' && !exceeded.includes(strict.stop)) {
          exceeded.push(strict.stop);
          run.emit({
            type: 'limit',
            reason: strict.stop,
            action: 'continue',
            message: limitEventMessage(strict.stop, 'continue', state.limits),
          });
          deps.log.warn('limit crossed (on_limit continue)', { reason: strict.stop, tool: call.name, tool_calls: count });
        }
      }
      count++;
      counts[call.name] = (counts[call.name] ?? 0) + 1;
      toRun.push({ i, call });
    }

    // Blocked/limited calls report immediately; allowed ones run in parallel, max_parallel_tools at a time.
    calls.forEach((c, i) => {
      const r = results[i];
      if (r) run.emit({ type: 'tool_end', id: c.id, name: c.name, status: r.status, duration_ms: 0, output: r.output, display: r.display });
    });
    await runLimited(toRun, state.limits.max_parallel_tools ?? LIMIT_DEFAULTS.max_parallel_tools, async ({ i, call }) => {
      const def = deps.registry.get(call.name)!;
      const t0 = performance.now();
      run.emit({ type: 'tool_start', id: call.id, name: call.name });
      const r = await runWithRetries(() => executeTool(def, call.args, { ...ctx, callId: call.id }, deps.maxOutputChars), {
        retries: toolRetries(state.limits),
        signal: run.signal,
        onRetry: (info) => {
          deps.log.warn('tool call failed transiently, retrying', { tool: call.name, ...info });
          run.emit({ type: 'tool_retry', id: call.id, name: call.name, ...info });
        },
      });
      results[i] = r;
      if (r.status === 'error') deps.log.error('tool call failed', { tool: call.name, id: call.id, output: r.output.slice(0, 300) });
      run.emit({
        type: 'tool_end',
        id: call.id,
        name: call.name,
        status: r.status,
        duration_ms: Math.round(performance.now() - t0),
        output: r.output,
        display: r.display,
      });
    });
    const update: AgentStateUpdate = {
      messages: calls.map((c, i) => toolMessage(c, results[i]!)),
      tool_calls_count: count,
      tool_counts: counts,
      exceeded,
    };
    if (limitHit) {
      update.reached = limitHit;
      run.emit({
        type: 'limit',
        reason: limitHit,
        action: state.limits.on_limit === 'fail' ? 'stop' : 'wrap_up',
        message: limitEventMessage(limitHit, state.limits.on_limit === 'fail' ? 'stop' : 'wrap_up', state.limits),
      });
      deps.log.warn('Tool call limit exceeded', {
        reason: limitHit,
        tool_calls: count,
        tool_counts: counts,
        refused: results.filter((r) => r?.status === 'limit').length,
      });
    }
    if (run.signal.aborted) update.reached = stopReasonOf(run.signal);
    return update;
  };
}

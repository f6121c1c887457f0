/**
 * One run of an eval, in four timed stages: inject the scenario deterministically (through
 * the gate, into the ledger with its repair check), run the agent on the ticket, score the
 * answer and check the repair (the ledger's repair check; then, repaired, the lab's state
 * against the baseline: the regressions), and restore the checkpoint — always, also when a
 * stage before it failed — proving the lab equal to it before the next run.
 */
import type { Approver } from '../core/api.js';
import { poolFor } from '../devices/engine.js';
import { runRepairChecks } from '../faults/check.js';
import type { Fault } from '../faults/store.js';
import { applyScenario } from '../scenarios/api.js';
import type { Placement } from '../scenarios/fit.js';
import { faultStoreOf } from '../scenarios/lab.js';
import { closeServices } from '../tools/services.js';
import { runAgent, runSettings, ticketPrompt, type AgentOutcome, type SessionOpener } from './agent.js';
import { LabNotRestored, restoreLab, type EvalLab } from './lab.js';
import { targetName } from './plan.js';
import { scoreAnswer } from './score.js';
import { settleToBaseline, type LabBaseline } from './state.js';
import type { EvalMode, RunResult, StageTimes } from './types.js';

export interface RunContext {
  lab: EvalLab;
  checkpoint: string;
  mode: EvalMode;
  approver: Approver;
  open: SessionOpener;
  baseline: LabBaseline;
  /** Ctrl-C: stops the agent; the restore still runs */
  signal: AbortSignal;
  /** hears each fault once it is in the ledger (the trace a killed eval is undone from) */
  onFault(f: Fault): void;
}

export interface OneRun {
  placement: Placement;
  model: string;
  run: number;
  /** what is left of --max-cost for this run */
  maxCostUsd?: number | undefined;
}

const seconds = (ms: number) => Math.round(ms) / 1000;

function devicesOf(p: Placement): string[] {
  return p.target.kind === 'device' ? [p.target.name] : p.target.ends.map((e) => e.replace(/:[^:]*$/, ''));
}

async function checkRepair(ctx: RunContext, fault: Fault): Promise<Pick<RunResult, 'repaired' | 'repair_error' | 'regressions'>> {
  const { inject } = ctx.lab;
  const [r] = await runRepairChecks(faultStoreOf(inject.sessions), [fault], {
    project: inject.project,
    settings: inject.settings,
    pool: poolFor(inject.ctx.services, inject.settings, inject.ctx.log),
    signal: inject.ctx.signal,
    log: inject.ctx.log,
  });
  if (!r || r.status === 'error') return { repaired: null, repair_error: r?.evidence ?? 'the repair check did not run', regressions: null };
  if (r.status === 'fail') return { repaired: false, regressions: null };
  const settled = await settleToBaseline(ctx.baseline, inject.ctx, inject.settings.verify_timeout * 1000);
  return { repaired: true, regressions: 'error' in settled ? null : settled.regressions.length };
}

export async function runOne(ctx: RunContext, o: OneRun): Promise<{ result: RunResult; agentError?: AgentOutcome['error'] }> {
  const { inject } = ctx.lab;
  const s = o.placement.scenario;
  const stages: StageTimes = { inject_s: 0, agent_s: 0, check_s: 0, restore_s: 0 };
  const t0 = performance.now();
  let fault: Fault | undefined;
  try {
    const target = o.placement.target.kind === 'device' ? { device: o.placement.target.name } : { link: o.placement.target.link_id };
    fault = (await applyScenario(inject, s.id, target, o.placement.values, { approver: ctx.approver, requestText: `eval: ${s.id}` })).fault;
    ctx.onFault(fault);
    // the agent's session opens consoles of its own: the eval's are closed meanwhile
    await closeServices(inject.ctx.services);
    const t1 = performance.now();
    stages.inject_s = seconds(t1 - t0);
    const outcome = await runAgent(
      ctx.open,
      runSettings(inject.settings, o.model, ctx.mode, o.maxCostUsd),
      ticketPrompt(s.ticket!, ctx.mode),
      ctx.signal,
    );
    const t2 = performance.now();
    stages.agent_s = seconds(t2 - t1);
    const scored = scoreAnswer(outcome.answer, { devices: devicesOf(o.placement), category: s.category, keywords: s.diagnosis!.keywords });
    const repair =
      ctx.mode === 'lab' && s.diagnosis!.repair === 'config' && !outcome.error
        ? await checkRepair(ctx, fault)
        : { repaired: null, regressions: null };
    const t3 = performance.now();
    stages.check_s = seconds(t3 - t2);
    await restoreLab(ctx.lab, ctx.checkpoint, ctx.approver, [fault]);
    stages.restore_s = seconds(performance.now() - t3);
    const st = outcome.stats;
    const result: RunResult = {
      scenario: s.id,
      category: s.category,
      model: o.model,
      run: o.run,
      target: targetName(o.placement),
      fault_id: fault.id,
      ...scored,
      ...repair,
      tool_calls: st.tool_calls,
      llm_calls: st.llm_calls,
      input_tokens: st.input_tokens,
      output_tokens: st.output_tokens,
      tokens: st.input_tokens + st.output_tokens,
      cost_usd: st.cost_usd ?? null,
      wall_s: seconds(performance.now() - t0),
      stages,
      stopped_reason: outcome.stopped_reason,
      answer: outcome.answer,
      ...(outcome.error ? { error: outcome.error.message } : {}),
    };
    return outcome.error ? { result, agentError: outcome.error } : { result };
  } catch (err) {
    // a failed stage: the lab goes back all the same, then the failure stops the eval
    if (!(err instanceof LabNotRestored)) await restoreLab(ctx.lab, ctx.checkpoint, ctx.approver, fault ? [fault] : []);
    throw err;
  }
}

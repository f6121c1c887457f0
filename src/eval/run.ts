/**
 * The eval's loop: the checkpoint first (saved now, or --from restored and proven), the
 * lab's baseline state, then every scenario × model × run through ./run-one.ts, the lab
 * proven equal to the checkpoint after each. It stops early — the lab restored first —
 * on Ctrl-C (130), on an LLM (4) or controller (3) failure, and when --max-cost is spent
 * (5); a lab that cannot be restored stops it at once (8, thrown). The trace a killed eval
 * is undone from (./marker.ts) lives as long as the loop.
 */
import { saveLabCheckpoint } from '../checkpoints/named-save.js';
import type { Approver } from '../core/api.js';
import type { ErrorType } from '../core/events.js';
import { EXIT_CODE_OF_TYPE, ExitCode, UsageError } from '../errors.js';
import type { Fault } from '../faults/store.js';
import type { SessionOpener } from './agent.js';
import { LabNotRestored, restoreLab, type EvalLab } from './lab.js';
import { clearMarker, writeMarker, type EvalMarker } from './marker.js';
import { runOne } from './run-one.js';
import { readBaseline } from './state.js';
import type { EvalPlan, RunResult } from './types.js';

export interface EvalOptions {
  approver: Approver;
  open: SessionOpener;
  /** Ctrl-C */
  signal: AbortSignal;
  /** --max-cost: USD for the whole eval */
  maxCostUsd?: number | undefined;
  onRun?(r: RunResult, done: number, total: number): void;
}

export interface EvalOutcome {
  runs: RunResult[];
  /** why the eval stopped before every run completed */
  stopped?: { code: number; message: string };
}

const STOPPING: ErrorType[] = ['provider', 'controller', 'aborted'];

async function prepareCheckpoint(lab: EvalLab, plan: EvalPlan, approver: Approver): Promise<void> {
  if (plan.checkpoint.from) return restoreLab(lab, plan.checkpoint.name, approver);
  const saved = await saveLabCheckpoint(
    { ctx: lab.named.ctx, store: lab.named.store, controller: lab.named.controller },
    { name: plan.checkpoint.name, note: 'gns3-copilot eval: the lab before it' },
  );
  const unsaved = saved.devices.filter((d) => d.status === 'not_saved' && plan.targets.includes(d.name));
  if (unsaved.length > 0)
    throw new UsageError(
      `eval: ${unsaved.map((d) => `${d.name} could not be saved (${d.error})`).join(', ')}: its restore could not be proven`,
    );
}

export async function runEval(lab: EvalLab, plan: EvalPlan, o: EvalOptions): Promise<EvalOutcome> {
  const dataDir = lab.inject.settings.data_dir;
  const marker: EvalMarker = {
    controller: lab.named.controller,
    project_id: plan.project.id,
    project: plan.project.name,
    checkpoint: plan.checkpoint.name,
    saved: !plan.checkpoint.from,
    faults: [],
    pid: process.pid,
    started_at: new Date().toISOString(),
  };
  writeMarker(dataDir, marker);
  try {
    return await loop(lab, plan, o, marker);
  } catch (err) {
    // restored (each run restores before it throws): the trace goes; not restored: it stays for --resume
    if (!(err instanceof LabNotRestored)) finish(lab, plan, { runs: [] });
    throw err;
  }
}

async function loop(lab: EvalLab, plan: EvalPlan, o: EvalOptions, marker: EvalMarker): Promise<EvalOutcome> {
  const dataDir = lab.inject.settings.data_dir;
  await prepareCheckpoint(lab, plan, o.approver);
  const baseline = await readBaseline(plan.routers, lab.inject.ctx);
  const ctx = {
    lab,
    checkpoint: plan.checkpoint.name,
    mode: plan.mode,
    approver: o.approver,
    open: o.open,
    baseline,
    signal: o.signal,
    onFault: (f: Fault) => writeMarker(dataDir, { ...marker, faults: (marker.faults = [...marker.faults, f.id]) }),
  };
  const runs: RunResult[] = [];
  const total = plan.cases.length * plan.models.length * plan.runs;
  let spent = 0;
  const stop = (code: number, message: string): EvalOutcome => ({ runs, stopped: { code, message } });
  for (const placement of plan.cases)
    for (const model of plan.models)
      for (let run = 1; run <= plan.runs; run++) {
        if (o.signal.aborted) return finish(lab, plan, stop(ExitCode.Aborted, 'interrupted: the lab is restored'));
        const left = o.maxCostUsd !== undefined ? o.maxCostUsd - spent : undefined;
        if (left !== undefined && left < 0.001)
          return finish(lab, plan, stop(ExitCode.Limit, `--max-cost ${o.maxCostUsd} USD spent after ${runs.length} of ${total} runs`));
        const { result, agentError } = await runOne(ctx, { placement, model, run, maxCostUsd: left });
        runs.push(result);
        spent += result.cost_usd ?? 0;
        o.onRun?.(result, runs.length, total);
        if (agentError && STOPPING.includes(agentError.type))
          return finish(lab, plan, stop(EXIT_CODE_OF_TYPE[agentError.type], `${model}: ${agentError.message}`));
        // what is left of --max-cost did not cover the run's next call: the runs after it could not run either
        if (result.stopped_reason === 'max_cost')
          return finish(lab, plan, stop(ExitCode.Limit, `--max-cost ${o.maxCostUsd} USD spent after ${runs.length} of ${total} runs`));
      }
  return finish(lab, plan, { runs });
}

/** The lab is the checkpoint again (each run proved it): the trace goes, and the checkpoint if the eval saved it. */
function finish(lab: EvalLab, plan: EvalPlan, out: EvalOutcome): EvalOutcome {
  if (!plan.checkpoint.from)
    lab.named.store.delete({ controller: lab.named.controller, project_id: plan.project.id }, plan.checkpoint.name);
  clearMarker(lab.inject.settings.data_dir);
  return out;
}

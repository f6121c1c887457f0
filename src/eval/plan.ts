/**
 * What an eval will do, read from the live lab before anything is sent: the eval-ready
 * scenarios of the selection that fit the lab (platform, target, parameters resolved from
 * the devices' facts, as deterministic injection places them), one target each drawn with
 * the seed (same seed, same lab: same targets), the models and runs, the devices it breaks
 * and restores, and the worst-case cost. Read-only.
 */
import type { Settings } from '../config/schema.js';
import { UsageError } from '../errors.js';
import { priceOf } from '../core/pricing.js';
import { COST_OUTPUT_CAP, worstCaseUsd } from '../agent/cost-limit.js';
import { resolveContextLimitK } from '../agent/providers.js';
import { poolFor } from '../devices/engine.js';
import { readDeviceFacts } from '../scenarios/facts.js';
import { fitScenarios, type FitOptions, type Placement } from '../scenarios/fit.js';
import type { InjectLab } from '../scenarios/lab.js';
import { seededRandom } from '../scenarios/pick.js';
import { findScenario, suggest } from '../skills/lookup.js';
import { evalScoring, isEvalReady } from '../skills/eval-ready.js';
import type { InjectionScenario } from '../skills/schema.js';
import type { EvalMode, EvalPlan } from './types.js';

export interface Selection {
  /** `--scenarios ID,…` */
  scenarios?: string[] | undefined;
  /** `--category C` */
  category?: string | undefined;
  /** `--level easy|medium|hard` */
  difficulty?: FitOptions['difficulty'];
}

export interface PlanOptions extends Selection {
  models: string[];
  runs: number;
  mode: EvalMode;
  seed: string;
  checkpoint: { name: string; from: boolean };
}

/** The scenarios the selection names, eval-ready; a named one that is unknown or not scorable is a usage error. */
export function selectScenarios(lib: InjectLab['lib'], sel: Selection): InjectionScenario[] {
  if (sel.scenarios) {
    return sel.scenarios.map((id) => {
      const s = findScenario(lib, id);
      if (!s) {
        const near = suggest([...lib.injection.keys()], id);
        throw new UsageError(`--scenarios: unknown scenario "${id}"${near.length ? ` (did you mean ${near.join(', ')}?)` : ''}`);
      }
      if (!isEvalReady(s)) throw new UsageError(`--scenarios: ${s.id} is ${evalScoring(s)}`);
      return s;
    });
  }
  const all = [...lib.injection.values()].filter(isEvalReady).filter((s) => !sel.category || s.category === sel.category);
  if (all.length === 0 && sel.category) {
    const cats = [...new Set([...lib.injection.values()].filter(isEvalReady).map((s) => s.category))].sort();
    throw new UsageError(`--category: no eval-ready scenario of category "${sel.category}" (categories: ${cats.join(', ')})`);
  }
  return all;
}

/** The worst case of one run: every iteration's call with the whole context in and the output cap out; null without a price. */
export function worstCasePerRun(settings: Settings, model: string): number | null {
  const price = priceOf(model, settings.model_prices);
  if (!price) return null;
  let contextK: number;
  try {
    contextK = resolveContextLimitK({ context_limit: settings.context_limit, model });
  } catch {
    // an unknown window: the largest a setting allows, so the figure stays a worst case
    contextK = 10_000;
  }
  // the iterations, and the one answer without tools a limit may still ask for
  return worstCaseUsd(price, contextK * 1000, settings.max_tokens ?? COST_OUTPUT_CAP) * (settings.max_iterations + 1);
}

export const targetName = (p: Placement) => (p.target.kind === 'device' ? p.target.name : p.target.label);

export async function planEval(lab: InjectLab, o: PlanOptions): Promise<EvalPlan> {
  const wanted = selectScenarios(lab.lib, o);
  const topology = await lab.project.getTopology(lab.ctx.signal);
  const pool = poolFor(lab.ctx.services, lab.settings, lab.ctx.log);
  const devices = await readDeviceFacts(
    topology,
    topology.nodes.map((n) => n.name),
    { settings: lab.settings, pool, signal: lab.ctx.signal, log: lab.ctx.log },
  );
  const fits = fitScenarios(
    wanted,
    { topology, devices },
    { level: lab.settings.inject_level, difficulty: o.difficulty, allowRepeat: true },
  );
  const random = seededRandom(o.seed);
  const cases: Placement[] = [];
  const skipped: EvalPlan['skipped'] = [];
  // in the order asked for (--scenarios), else the library's order by id
  const order = o.scenarios ? wanted.map((s) => s.id) : fits.map((f) => f.id);
  for (const id of order) {
    const f = fits.find((x) => x.id === id)!;
    if (f.fits.length === 0) skipped.push({ id, reason: f.reason ?? 'fits nowhere' });
    else cases.push(f.fits[Math.floor(random() * f.fits.length)]!);
  }
  if (cases.length === 0) {
    const why = skipped.slice(0, 3).map((s) => `${s.id}: ${s.reason}`);
    throw new UsageError(`no eval-ready scenario fits project ${lab.project.projectName}${why.length ? ` (${why.join('; ')})` : ''}`);
  }
  const perRun = Object.fromEntries(o.models.map((m) => [m, worstCasePerRun(lab.settings, m)]));
  const worst = Object.fromEntries(o.models.map((m) => [m, perRun[m] === null ? null : perRun[m]! * cases.length * o.runs]));
  const values = Object.values(worst);
  return {
    project: { id: lab.project.projectId, name: lab.project.projectName },
    checkpoint: o.checkpoint,
    cases,
    skipped,
    models: o.models,
    runs: o.runs,
    mode: o.mode,
    seed: o.seed,
    max_iterations: lab.settings.max_iterations,
    targets: [...new Set(cases.map(targetName))],
    routers: devices.filter((d) => d.platform === 'frr' || d.platform === 'cisco_ios').map((d) => d.name),
    worst_case_usd: worst,
    worst_case_total_usd: values.some((v) => v === null) ? null : values.reduce<number>((s, v) => s + v!, 0),
  };
}

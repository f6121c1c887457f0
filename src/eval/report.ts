/**
 * How an eval is shown: the plan (what `--yes` approves), one progress row per run as it
 * ends (✓/✗ per stage and the model's running totals), the summary per model, and the
 * --json object and the --junit XML. Pure: strings in, strings out.
 */
import { summarizeModel } from './summary.js';
import { targetName } from './plan.js';
import type { EvalPlan, ModelSummary, RunResult } from './types.js';

const usd = (x: number | null) => (x === null ? 'unknown (no price)' : `$${x.toFixed(4)}`);

export function planText(plan: EvalPlan): string {
  const runs = plan.cases.length * plan.models.length * plan.runs;
  const lines = [
    `eval plan for project ${plan.project.name} (${plan.mode} mode, seed ${plan.seed}, up to ${plan.max_iterations} iterations a run)`,
    `  checkpoint: ${plan.checkpoint.name}${plan.checkpoint.from ? ' (given with --from: the lab is restored to it first)' : ' (saved now, restored after every run)'}`,
    `  scenarios (${plan.cases.length}):`,
    ...plan.cases.map(
      (p) =>
        `    ${p.scenario.id} (${p.scenario.category}, ${p.scenario.difficulty}) on ${targetName(p)}${p.scenario.diagnosis?.repair === 'none' ? ' — diagnosis only' : ''}`,
    ),
    ...(plan.skipped.length > 0
      ? [`  not fitting the lab (${plan.skipped.length}):`, ...plan.skipped.map((s) => `    ${s.id}: ${s.reason}`)]
      : []),
    `  models: ${plan.models.join(', ')}; ${plan.runs} run${plan.runs === 1 ? '' : 's'} each: ${runs} run${runs === 1 ? '' : 's'}`,
    `  breaks and restores: ${plan.targets.join(', ')}`,
    `  worst-case cost: ${plan.models.map((m) => `${m} ${usd(plan.worst_case_usd[m] ?? null)}`).join(', ')}; total ${usd(plan.worst_case_total_usd)}`,
  ];
  return `${lines.join('\n')}\n`;
}

const mark = (v: boolean | null) => (v === null ? '–' : v ? '✓' : '✗');
const pct = (x: number | null) => (x === null ? '–' : `${x}%`);

export const PROGRESS_HEAD = `${'scenario'.padEnd(30)} ${'model'.padEnd(16)} run  inj det loc rep  regr  tokens     cost  wall s  totals (det/loc/rep)\n`;

/** One row per run, as it ends: ✓/✗ per stage, then the model's running rates. */
export function progressRow(r: RunResult, all: readonly RunResult[]): string {
  const t = summarizeModel(r.model, all);
  const cost = r.cost_usd === null ? '–' : r.cost_usd.toFixed(4);
  return `${r.scenario.padEnd(30)} ${r.model.padEnd(16)} ${String(r.run).padStart(3)}   ${r.fault_id !== null ? '✓' : '✗'}   ${mark(r.detected)}   ${mark(r.localized)}   ${mark(r.repaired)}  ${String(r.regressions ?? '–').padStart(4)}  ${String(r.tokens).padStart(6)}  ${cost.padStart(7)}  ${r.wall_s.toFixed(1).padStart(6)}  ${pct(t.detected)}/${pct(t.localized)}/${pct(t.repaired)}${r.error ? `  (${r.error})` : ''}\n`;
}

export function summaryText(models: readonly ModelSummary[]): string {
  const head = `${'model'.padEnd(16)} runs  detected  localized  repaired  regressions  tokens (median)  cost (USD)  time/incident (median)`;
  const rows = models.map(
    (m) =>
      `${m.model.padEnd(16)} ${String(m.runs).padStart(4)}  ${pct(m.detected).padStart(8)}  ${pct(m.localized).padStart(9)}  ${pct(m.repaired).padStart(8)}  ${String(m.regressions).padStart(11)}  ${String(m.tokens_median).padStart(15)}  ${(m.cost_usd === null ? 'unknown' : m.cost_usd.toFixed(4)).padStart(10)}  ${`${m.wall_s_median.toFixed(1)} s`.padStart(22)}`,
  );
  return `\n${head}\n${rows.join('\n')}\n`;
}

export function evalJson(
  runs: readonly RunResult[],
  models: readonly ModelSummary[],
): { runs: readonly RunResult[]; models: readonly ModelSummary[] } {
  return { runs, models };
}

const xml = (s: string) =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    // characters XML 1.0 cannot carry at all
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

/** What a run missed, or nothing when it scored on every stage it was scored on. */
function missed(r: RunResult): string[] {
  return [
    !r.detected ? 'not detected' : '',
    !r.localized ? 'not localized' : '',
    r.repaired === false ? 'not repaired' : '',
    r.regressions ? `${r.regressions} regressions` : '',
  ].filter(Boolean);
}

/** One testcase per scenario × model × run: a failure names the stages it missed, an error a run that did not complete. */
export function junitXml(runs: readonly RunResult[]): string {
  const failures = runs.filter((r) => !r.error && missed(r).length > 0).length;
  const errors = runs.filter((r) => r.error).length;
  const time = runs.reduce((s, r) => s + r.wall_s, 0);
  const cases = runs.map((r) => {
    const head = `  <testcase classname="eval.${xml(r.model)}" name="${xml(`${r.scenario} on ${r.target} run ${r.run}`)}" time="${r.wall_s.toFixed(3)}"`;
    if (r.error) return `${head}>\n    <error message="${xml(r.error)}"/>\n  </testcase>`;
    const m = missed(r);
    if (m.length === 0) return `${head}/>`;
    return `${head}>\n    <failure message="${xml(m.join(', '))}">${xml(r.answer.slice(0, 2000))}</failure>\n  </testcase>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="gns3-copilot eval" tests="${runs.length}" failures="${failures}" errors="${errors}" time="${time.toFixed(3)}">\n${cases.join('\n')}\n</testsuite>\n`;
}

/** The plan as --estimate --json (and a refused run's --json) prints it. */
export function planJson(plan: EvalPlan) {
  return {
    project: plan.project.name,
    project_id: plan.project.id,
    checkpoint: plan.checkpoint,
    mode: plan.mode,
    seed: plan.seed,
    scenarios: plan.cases.map((p) => ({
      id: p.scenario.id,
      category: p.scenario.category,
      difficulty: p.scenario.difficulty,
      target: targetName(p),
      scored_on: p.scenario.diagnosis?.repair === 'none' ? 'diagnosis' : 'diagnosis_and_repair',
    })),
    skipped: plan.skipped,
    models: plan.models,
    runs: plan.runs,
    targets: plan.targets,
    worst_case_usd: plan.worst_case_usd,
    worst_case_total_usd: plan.worst_case_total_usd,
  };
}

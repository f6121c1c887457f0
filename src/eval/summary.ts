/** Per model: the rates, medians and spend of its runs (the `models` of eval's --json). Pure. */
import type { ModelSummary, RunResult } from './types.js';

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const percent = (n: number, of: number) => Math.round((n / of) * 1000) / 10;
const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

export function summarizeModel(model: string, all: readonly RunResult[]): ModelSummary {
  const runs = all.filter((r) => r.model === model);
  const n = Math.max(runs.length, 1);
  const repairable = runs.filter((r) => r.repaired !== null);
  const costs = runs.map((r) => r.cost_usd);
  return {
    model,
    runs: runs.length,
    detected: percent(runs.filter((r) => r.detected).length, n),
    localized: percent(runs.filter((r) => r.localized).length, n),
    repaired: repairable.length > 0 ? percent(repairable.filter((r) => r.repaired).length, repairable.length) : null,
    regressions: runs.reduce((s, r) => s + (r.regressions ?? 0), 0),
    tokens_median: Math.round(median(runs.map((r) => r.tokens))),
    cost_usd: costs.some((c) => c === null)
      ? null
      : round(
          costs.reduce<number>((s, c) => s + c!, 0),
          6,
        ),
    wall_s_median: round(median(runs.map((r) => r.wall_s)), 2),
  };
}

export function summarize(models: readonly string[], runs: readonly RunResult[]): ModelSummary[] {
  return models.map((m) => summarizeModel(m, runs));
}

/** The shapes of `gns3-copilot eval` (docs/cli.md, eval): the plan, one run's result, a model's summary. */
import type { Placement } from '../scenarios/fit.js';

/** `lab`: the agent may change the lab (every change approved) and is scored on repair; `teaching`: diagnosis only. */
export type EvalMode = 'lab' | 'teaching';

export interface EvalPlan {
  project: { id: string; name: string };
  /** the checkpoint every run starts from and is restored to; `from`: given with --from (else saved at start) */
  checkpoint: { name: string; from: boolean };
  /** one placement per scenario, in the order they run */
  cases: Placement[];
  /** eval-ready scenarios of the selection that do not fit the lab, with why */
  skipped: { id: string; reason: string }[];
  models: string[];
  runs: number;
  mode: EvalMode;
  seed: string;
  max_iterations: number;
  /** the devices (or links) the eval breaks and restores */
  targets: string[];
  /** the routers whose state (interfaces, neighbours, routes) is the baseline regressions are measured against */
  routers: string[];
  /** per model the worst case of all its runs in USD; null: the model has no price */
  worst_case_usd: Record<string, number | null>;
  /** every model's worst case added up; null when one has no price */
  worst_case_total_usd: number | null;
}

/** How long each stage of a run took, in seconds. */
export interface StageTimes {
  inject_s: number;
  agent_s: number;
  check_s: number;
  restore_s: number;
}

export interface RunResult {
  scenario: string;
  category: string;
  model: string;
  /** 1-based */
  run: number;
  /** the device, or the link "R1:e0 <-> R2:e0" */
  target: string;
  fault_id: number | null;
  detected: boolean;
  localized: boolean;
  /** null: not scored (teaching mode, a link filter no configuration repairs, or the check could not decide: see repair_error) */
  repaired: boolean | null;
  repair_error?: string;
  /** baseline state lost or worse after a repaired run; null when not measured (not repaired, or the state could not be read) */
  regressions: number | null;
  tool_calls: number;
  llm_calls: number;
  input_tokens: number;
  output_tokens: number;
  tokens: number;
  cost_usd: number | null;
  wall_s: number;
  stages: StageTimes;
  /** why the agent stopped (done, max_iterations, …) */
  stopped_reason: string;
  /** the agent's final answer (what detected and localized were read from) */
  answer: string;
  /** the run did not complete: why (a stopping LLM or controller failure, Ctrl-C) */
  error?: string;
}

export interface ModelSummary {
  model: string;
  runs: number;
  /** percent of runs, 0..100 */
  detected: number;
  localized: number;
  /** percent of the runs scored on repair; null when none was */
  repaired: number | null;
  /** regressions over every run */
  regressions: number;
  tokens_median: number;
  /** the model's whole spend; null when its price is unknown */
  cost_usd: number | null;
  wall_s_median: number;
}

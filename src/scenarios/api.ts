/**
 * The scenario library as a module, for callers other than `inject --scenario|--random` —
 * `eval` and the class commands: one named scenario on one target of an open lab (see
 * ./lab.ts, `openInjectLab`), placed from the live lab and applied through the one dispatch
 * into the fault ledger, exactly as the command does it (./run.ts); and the seeded draw.
 * The fault it returns is the ledger's row: `faults check|restore` and
 * src/undo/fault-restore.ts work on it as on any other. docs/checks-and-faults.md.
 */
import { CopilotError, ExitCode } from '../errors.js';
import type { Fault } from '../faults/store.js';
import { applyPlacements, type ApplyOptions } from './apply.js';
import type { Values } from './config-match.js';
import type { FitOptions, Placement } from './fit.js';
import type { InjectLab } from './lab.js';
import { planInjection, type ProjectPlan } from './plan.js';

/** Where a scenario goes: a device by name, or a link as the command line names it ("R1:e0-R2:e0", "R1 R2", an id). */
export type ScenarioTarget = { device: string } | { link: string };

export interface AppliedScenario {
  /** the ledger's fault (`fault.id` is what `faults show|check|restore` take) */
  fault: Fault;
  placement: Placement;
  /** some lines were refused by the device although the fault was recorded */
  warning?: string;
}

/**
 * Applies scenario `id` on the target. `params` win over the values read from the lab (as
 * `--set`). Approved by `o.approver` (none: the gate refuses, nothing is sent), recorded under
 * `o.sessionId` (an existing session; default: the project's CLI session). Throws a UsageError
 * (exit 2, nothing sent) when the scenario cannot be placed — an unknown id or target, a
 * parameter nothing resolves, named in the message — and a CopilotError with exit 6 when
 * nobody approved it, 8 when the device or the ledger refused it.
 */
export async function applyScenario(
  lab: InjectLab,
  id: string,
  target: ScenarioTarget,
  params: Values = {},
  o: ApplyOptions = {},
): Promise<AppliedScenario> {
  const plan = await planInjection(lab, { scenario: id, ...target, set: params });
  const [outcome] = await applyPlacements(lab, plan.placements, o);
  if (!outcome) throw new CopilotError(`${id}: nothing was placed`, ExitCode.NotRestored);
  if (outcome.status === 'injected')
    return { fault: outcome.fault, placement: outcome.placement, ...(outcome.warning ? { warning: outcome.warning } : {}) };
  const code = outcome.status === 'blocked' && outcome.needsApproval ? ExitCode.ApprovalUnavailable : ExitCode.NotRestored;
  throw new CopilotError(`${id}: not applied: ${outcome.reason}`, code);
}

export interface DrawOptions {
  /** the same seed draws the same scenarios on the same lab and ledger */
  seed: string;
  difficulty?: FitOptions['difficulty'];
  /** may draw scenarios the project's ledger has used already */
  allowRepeat?: boolean;
  /** draw only for this device, or only link scenarios on this link */
  target?: ScenarioTarget;
}

/**
 * Draws up to `n` scenarios that fit the lab (read-only): the placements, in the order drawn,
 * to hand to `applyPlacements`, and the scenarios left out with why. Throws a UsageError when
 * none fits.
 */
export function drawScenarios(lab: InjectLab, n: number, o: DrawOptions): Promise<ProjectPlan> {
  return planInjection(lab, {
    random: n,
    seed: o.seed,
    difficulty: o.difficulty,
    allowRepeat: o.allowRepeat,
    ...(o.target ?? {}),
  });
}

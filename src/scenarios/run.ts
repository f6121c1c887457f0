/**
 * One project of an `inject --scenario|--random` run: open it, plan (read-only), send the
 * plan through the dispatch — refused for want of approval without `--yes`, so nothing is
 * sent — and report. In a class run a project's failure is its row; alone, it is thrown.
 */
import { CopilotError, errorMessage } from '../errors.js';
import type { Approver } from '../core/api.js';
import { applyPlacements } from './apply.js';
import type { RawProject } from '../gns3/raw.js';
import { openInjectLab, type OpenLabDeps } from './lab.js';
import { planInjection, type InjectRequest } from './plan.js';
import { outcomeRow, plannedRow, type ProjectReport } from './report.js';

/** `--yes`: the one approval, given for every call of the run. */
export const YES: Approver = () => Promise.resolve({ kind: 'allow_once' as const });

export interface RunOptions {
  yes: boolean;
  /** throw the project's error instead of reporting it (a run on one project) */
  rethrow: boolean;
}

export async function runProject(
  d: OpenLabDeps,
  project: string | RawProject,
  req: InjectRequest & { perProjectSeed?: boolean },
  o: RunOptions,
): Promise<ProjectReport> {
  let lab: Awaited<ReturnType<typeof openInjectLab>> | undefined;
  try {
    lab = await openInjectLab(d, project);
    const seed = req.perProjectSeed ? lab.project.projectName : req.seed;
    const plan = await planInjection(lab, { ...req, seed });
    const rows = plan.placements.map((p) => plannedRow(p, lab!.lib, lab!.settings.inject_level));
    const head = {
      project: plan.project.name,
      project_id: plan.project.id,
      ...(plan.seed !== undefined ? { seed: plan.seed } : {}),
      ...(plan.skipped && plan.skipped.length > 0 && plan.placements.length < (req.random ?? 0) ? { skipped: plan.skipped } : {}),
    };
    const outcomes = await applyPlacements(lab, plan.placements, o.yes ? { approver: YES } : {});
    // without --yes every call is refused for want of approval: that is the plan, nothing was sent
    if (outcomes.every((x) => x.status === 'blocked' && x.needsApproval) && !o.yes) return { ...head, status: 'planned', faults: rows };
    const faults = outcomes.map((x, i) => outcomeRow(x, rows[i]!));
    const ok = faults.filter((f) => f.status === 'injected').length;
    return { ...head, status: ok === faults.length ? 'injected' : ok > 0 ? 'partial' : 'error', faults };
  } catch (err) {
    if (o.rethrow || !(err instanceof CopilotError)) throw err;
    return {
      project: typeof project === 'string' ? project : project.name,
      status: 'error',
      faults: [],
      error: errorMessage(err).split('\n')[0]!,
    };
  } finally {
    await lab?.close();
  }
}

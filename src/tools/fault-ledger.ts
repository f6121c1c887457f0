/**
 * The fault ledger as the injection tools use it in inject mode: before a fault is
 * applied, resolve and validate it (./spec.ts) and refuse a second open fault of
 * the same category on the same device or link; after it was applied, record it.
 * Refusals are tool outcomes the model reads, never exceptions.
 */
import type { ProjectScope } from '../gns3/types.js';
import { poolFor } from '../devices/engine.js';
import { failure, type ToolContext, type ToolOutcome } from './types.js';
import { toolLibrary } from './skills/library.js';
import { runRepairChecks } from '../faults/check.js';
import { resolveFault, type FaultArg, type FaultTarget, type ResolvedFault } from '../faults/spec.js';
import type { Fault, FaultLedger, FaultStore } from '../faults/store.js';

/** The ledger a call records into: only in inject mode, only where the front end keeps one (the agent's sessions). */
export function ledgerOf(ctx: ToolContext): FaultLedger | undefined {
  return ctx.mode === 'troubleshooting_injection' ? ctx.faults : undefined;
}

export interface AdmittedFault {
  ledger: FaultLedger;
  project: ProjectScope;
  fault: ResolvedFault;
  /** frees the fault's (target, category) for other calls; recordFault calls it, and so must a call that applied nothing */
  release(): void;
}

/**
 * Faults admitted and not yet recorded, per ledger: the calls of one model answer run in
 * parallel, so the second of two same-category faults on one device would otherwise pass
 * the ledger check before the first is recorded.
 */
const inFlight = new WeakMap<FaultStore, Map<string, string>>();
const slotOf = (projectId: string, f: ResolvedFault) => `${projectId}\u0000${f.target.toLowerCase()}\u0000${f.category}`;

const MISSING =
  'inject mode: every change is a fault recorded in the fault ledger: pass fault {scenario, parameters} ' +
  '(an injection_skills scenario id), or fault {category, difficulty, restore_commands, repair_check} for one of your own';

/** Checks a fault before anything is sent; the outcome to return when it is refused. */
export async function admitFault(
  ctx: ToolContext,
  ledger: FaultLedger,
  arg: FaultArg | undefined,
  target: FaultTarget,
): Promise<{ ok: true; admitted: AdmittedFault } | { ok: false; outcome: ToolOutcome }> {
  if (!arg) return { ok: false, outcome: failure(MISSING) };
  const r = resolveFault(arg, target, toolLibrary(ctx).lib, ctx.settings.inject_level);
  if (!r.ok) return { ok: false, outcome: failure(`fault refused, nothing was applied: ${r.error}`) };
  const project = await ctx.project();
  const busy = inFlight.get(ledger.store) ?? new Map<string, string>();
  inFlight.set(ledger.store, busy);
  const slot = slotOf(project.projectId, r.fault);
  const other = busy.get(slot);
  if (other !== undefined)
    return {
      ok: false,
      outcome: failure(
        `fault refused, nothing was applied: another call of this answer (${other}) is applying a ${r.fault.category} fault on ${r.fault.target}; ` +
          `one open fault per category on a ${r.fault.target_kind}`,
      ),
    };
  busy.set(slot, ctx.callId ?? 'a parallel call');
  const release = () => {
    if (busy.get(slot) === (ctx.callId ?? 'a parallel call')) busy.delete(slot);
  };
  try {
    return await admitOpen(ctx, ledger, project, r.fault, release);
  } catch (err) {
    release();
    throw err;
  }
}

async function admitOpen(
  ctx: ToolContext,
  ledger: FaultLedger,
  project: ProjectScope,
  fault: ResolvedFault,
  release: () => void,
): Promise<{ ok: true; admitted: AdmittedFault } | { ok: false; outcome: ToolOutcome }> {
  const open = ledger.store.openOn(project.projectId, fault.target, fault.category);
  if (open) {
    // the ledger may be behind the lab: a student may have fixed it since the last check
    const [now] = await runRepairChecks(ledger.store, [open], {
      project,
      settings: ctx.settings,
      pool: poolFor(ctx.services, ctx.settings, ctx.log),
      signal: ctx.signal,
      log: ctx.log,
    });
    if (now && now.fault.state === 'open') {
      release();
      return {
        ok: false,
        outcome: failure(
          `fault refused, nothing was applied: ${openText(open)} is still open (its repair check: ${now.evidence}); ` +
            `one open fault per category on a ${open.target_kind}: choose another category or ${open.target_kind}`,
          {
            open_fault: {
              id: open.id,
              scenario: open.scenario,
              category: open.category,
              target: open.target,
              injected_at: open.injected_at,
            },
          },
        ),
      };
    }
  }
  return { ok: true, admitted: { ledger, project, fault, release } };
}

const openText = (f: Fault) =>
  `fault #${f.id} (${f.scenario ?? f.category}, category ${f.category}, on ${f.target}, injected ${f.injected_at})`;

/** Records an applied fault; its id and repair check go back to the model. */
export function recordFault(a: AdmittedFault, applied: Fault['applied'], callId: string | undefined): Fault {
  try {
    return a.ledger.store.record({
      session_id: a.ledger.sessionId,
      project_id: a.project.projectId,
      project_name: a.project.projectName,
      call_id: callId,
      ...a.fault,
      applied,
    });
  } finally {
    a.release();
  }
}

/** What the model reads about the recorded fault. */
export function faultNote(f: Fault): Record<string, unknown> {
  return { id: f.id, scenario: f.scenario, category: f.category, difficulty: f.difficulty, target: f.target, repair_check: f.repair_check };
}

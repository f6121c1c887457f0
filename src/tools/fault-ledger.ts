/**
 * The fault ledger as the injection tools use it in inject mode: before a fault is
 * applied, resolve and validate it (src/faults/spec.ts) and refuse a second open fault of
 * the same category on the same device or link; after it was applied, record it.
 * Refusals are tool outcomes the model reads, never exceptions.
 */
import type { ProjectScope } from '../gns3/types.js';
import { poolFor } from '../devices/engine.js';
import { failure, type ToolContext, type ToolOutcome } from './types.js';
import { toolLibrary } from './skills/library.js';
import { runRepairChecks } from '../faults/check.js';
import { resolveFault, type FaultArg, type FaultTarget, type ResolvedFault } from '../faults/spec.js';
import type { Claim, ClaimHolder } from '../faults/claims.js';
import type { Fault, FaultLedger } from '../faults/store.js';

/** The ledger a call records into: only in inject mode, only where the front end keeps one (the agent's sessions). */
export function ledgerOf(ctx: ToolContext): FaultLedger | undefined {
  return ctx.mode === 'troubleshooting_injection' ? ctx.faults : undefined;
}

export interface AdmittedFault {
  ledger: FaultLedger;
  project: ProjectScope;
  fault: ResolvedFault;
  /** the fault's (project, target, category) slot, reserved in sessions.db until it is recorded or released */
  claim: Claim;
  /** frees the slot for other calls; recordFault frees it with the record, and a call that applied nothing must call this */
  release(): void;
}

const MISSING =
  'inject mode: every change is a fault recorded in the fault ledger: pass fault {scenario, parameters} ' +
  '(an injection_skills scenario id), or fault {category, difficulty, restore_commands, repair_check} for one of your own';

/** Who is applying a fault in the slot, as the refusal names them. */
function applyingText(h: ClaimHolder, f: ResolvedFault): string {
  const who = h.here ? `another call of this answer (${h.holder})` : `another call (${h.holder}, process ${h.pid})`;
  return `fault refused, nothing was applied: ${who} is applying a ${f.category} fault on ${f.target}; one open fault per category on a ${f.target_kind}`;
}

/**
 * Checks a fault before anything is sent; the outcome to return when it is refused. The slot is
 * reserved in sessions.db first, in one IMMEDIATE transaction with the read of the open fault in
 * it, so two calls — of one answer, of two MCP clients, of two server processes — never both pass.
 */
export async function admitFault(
  ctx: ToolContext,
  ledger: FaultLedger,
  arg: FaultArg | undefined,
  target: FaultTarget,
): Promise<{ ok: true; admitted: AdmittedFault } | { ok: false; outcome: ToolOutcome }> {
  if (!arg) return { ok: false, outcome: failure(MISSING, {}, { code: 'invalid_arguments' }) };
  const r = resolveFault(arg, target, toolLibrary(ctx).lib, ctx.settings.inject_level);
  if (!r.ok) return { ok: false, outcome: failure(`fault refused, nothing was applied: ${r.error}`, {}, { code: 'invalid_arguments' }) };
  const project = await ctx.project();
  const slot = ledger.store.reserveSlot(project.projectId, r.fault.target, r.fault.category, ctx.callId ?? 'a parallel call');
  if (!('claim' in slot)) return { ok: false, outcome: failure(applyingText(slot, r.fault)) };
  const admitted: AdmittedFault = {
    ledger,
    project,
    fault: r.fault,
    claim: slot.claim,
    release: () => ledger.store.releaseClaim(slot.claim),
  };
  try {
    const refused = slot.open && (await stillOpen(ctx, admitted, slot.open));
    if (!refused) return { ok: true, admitted };
    admitted.release();
    return { ok: false, outcome: refused };
  } catch (err) {
    admitted.release();
    throw err;
  }
}

/** The open fault in the slot, checked now: the ledger may be behind the lab (a student may have fixed it since the last check). */
async function stillOpen(ctx: ToolContext, a: AdmittedFault, open: Fault): Promise<ToolOutcome | undefined> {
  const [now] = await runRepairChecks(a.ledger.store, [open], {
    project: a.project,
    settings: ctx.settings,
    pool: poolFor(ctx.services, ctx.settings, ctx.log),
    signal: ctx.signal,
    log: ctx.log,
  });
  if (!now || now.fault.state !== 'open') return undefined;
  return failure(
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
  );
}

const openText = (f: Fault) =>
  `fault #${f.id} (${f.scenario ?? f.category}, category ${f.category}, on ${f.target}, injected ${f.injected_at})`;

/** Records an applied fault and frees its slot in the same transaction; its id and repair check go back to the model. */
export function recordFault(a: AdmittedFault, applied: Fault['applied'], callId: string | undefined): Fault {
  try {
    return a.ledger.store.record(
      {
        session_id: a.ledger.sessionId,
        project_id: a.project.projectId,
        project_name: a.project.projectName,
        call_id: callId,
        ...a.fault,
        applied,
      },
      new Date(),
      a.claim,
    );
  } finally {
    a.release();
  }
}

/** What the model reads about the recorded fault. */
export function faultNote(f: Fault): Record<string, unknown> {
  return { id: f.id, scenario: f.scenario, category: f.category, difficulty: f.difficulty, target: f.target, repair_check: f.repair_check };
}

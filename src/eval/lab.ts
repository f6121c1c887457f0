/**
 * The lab an eval works on: the project opened for deterministic injection (the scenario
 * library's InjectLab) and the named checkpoints it is saved to and restored from — one
 * tool context, one device pool. The restore goes through the one gate (src/undo/
 * named-restore.ts) with the eval's approval, then the lab is captured again and compared
 * with the checkpoint: every saved device's configuration and the topology must be equal,
 * else the eval stops (exit 8) saying what differs.
 */
import { controllerKey, NamedCheckpointStore } from '../checkpoints/named-store.js';
import type { Approver } from '../core/api.js';
import { CopilotError, ExitCode } from '../errors.js';
import type { Fault } from '../faults/store.js';
import { faultStoreOf, type InjectLab } from '../scenarios/lab.js';
import { diffNamed, restoreNamed, type NamedRestoreDeps } from '../undo/named-restore.js';

export interface EvalLab {
  inject: InjectLab;
  named: NamedRestoreDeps;
}

export function evalLab(inject: InjectLab): EvalLab {
  return {
    inject,
    named: {
      store: new NamedCheckpointStore(inject.sessions.db),
      registry: inject.registry,
      ctx: inject.ctx,
      controller: controllerKey(inject.settings.server),
    },
  };
}

/** What differs between the lab now and the checkpoint (devices by name, `topology`); empty when they are equal. */
export async function differsFrom(lab: EvalLab, checkpoint: string): Promise<string[]> {
  const r = await diffNamed(lab.named, checkpoint);
  return [
    ...r.devices.filter((d) => d.status !== 'unchanged' && d.status !== 'no_checkpoint').map((d) => `${d.name} (${d.status})`),
    ...(r.topology.status !== 'unchanged' ? ['the topology'] : []),
  ];
}

export class LabNotRestored extends CopilotError {
  constructor(checkpoint: string, why: string) {
    super(
      `the lab could not be restored to checkpoint ${checkpoint}: ${why}; it stands as it is now (gns3-copilot checkpoint diff ${checkpoint} shows how; eval --resume or checkpoint restore ${checkpoint} --yes tries again)`,
      ExitCode.NotRestored,
    );
  }
}

/** Puts the lab back to the checkpoint through the gate and proves it equal; closes the run's faults in the ledger. */
export async function restoreLab(lab: EvalLab, checkpoint: string, approver: Approver, faults: readonly Fault[] = []): Promise<void> {
  const s = lab.inject.settings;
  const report = await restoreNamed(lab.named, {
    name: checkpoint,
    mode: s.mode,
    policy: s.approve === 'never' ? 'never' : 'ask',
    approvalTools: s.approval_tools,
    approver,
    interactive: false,
  });
  if (report.blocked) throw new LabNotRestored(checkpoint, report.blocked.reason);
  const left = await differsFrom(lab, checkpoint);
  if (left.length > 0) throw new LabNotRestored(checkpoint, `${left.join(', ')} still differ`);
  // the lab is the checkpoint again: a fault nobody fixed is undone, not fixed (it stays in the ledger as restored_unfixed)
  const store = faultStoreOf(lab.inject.sessions);
  for (const f of faults) if (store.get(f.id)?.state === 'open') store.markRestored(f.id);
}

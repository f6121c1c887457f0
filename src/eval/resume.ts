/**
 * `eval --resume`: undoes an eval that was killed (kill -9, a crash, a lost terminal) from
 * the trace it left (./marker.ts): the lab is restored to the eval's checkpoint through the
 * gate and proven equal to it, the faults it had applied are closed in the ledger, the trace
 * (and the checkpoint, if the eval saved it) removed. It does not run the remaining runs.
 */
import type { Approver } from '../core/api.js';
import { UsageError } from '../errors.js';
import type { Fault } from '../faults/store.js';
import { faultStoreOf } from '../scenarios/lab.js';
import { restoreLab, type EvalLab } from './lab.js';
import { clearMarker, type EvalMarker } from './marker.js';

export async function resumeEval(lab: EvalLab, marker: EvalMarker, approver: Approver): Promise<{ faults: Fault[] }> {
  if (marker.project_id !== lab.inject.project.projectId)
    throw new UsageError(`eval --resume: the interrupted eval ran on project ${marker.project}; pass --project ${marker.project}`);
  const store = faultStoreOf(lab.inject.sessions);
  const faults = marker.faults.flatMap((id) => store.get(id) ?? []);
  await restoreLab(lab, marker.checkpoint, approver, faults);
  if (marker.saved) lab.named.store.delete({ controller: lab.named.controller, project_id: marker.project_id }, marker.checkpoint);
  clearMarker(lab.inject.settings.data_dir);
  return { faults: faults.map((f) => store.get(f.id) ?? f) };
}

/**
 * The regressions of a request, folded from its events: each configuration call whose
 * verification regressed (inject mode's report-only ones left out: the fault is the point),
 * with the devices it changed and the checkpoint of each taken just before that call — what a
 * rewind restores (an earlier call's change in the same request stays).
 * The one-shot (`--on-regression`) and the TUI's rewind question read it.
 */
import type { AgentEvent } from './events.js';
import { findingText, type Verification } from './verification.js';

export interface RegressedCall {
  id: string;
  name: string;
  verification: Verification;
  /** the devices the call changed that have a checkpoint from before it */
  devices: string[];
  /** those checkpoints' ids (CheckpointStore.saveDevice), one per device */
  checkpoints: number[];
}

/** What a call's `checkpoint` events kept: per device, the checkpoint taken before the call. */
export interface CallCheckpoint {
  device: string;
  id: number;
}

/** The devices of a call's kept checkpoints (not `topology`: a regression's rewind restores configurations). */
export function rewindable(kept: readonly CallCheckpoint[]): Pick<RegressedCall, 'devices' | 'checkpoints'> {
  const devs = kept.filter((c) => c.device !== 'topology' && c.device !== 'all');
  return { devices: devs.map((c) => c.device), checkpoints: devs.map((c) => c.id) };
}

export class RegressionWatch {
  private readonly checkpointed = new Map<string, CallCheckpoint[]>();
  private readonly calls: RegressedCall[] = [];

  add(e: AgentEvent): void {
    if (e.type === 'checkpoint' && !e.error && e.checkpoint_id !== undefined)
      this.checkpointed.set(e.id, [...(this.checkpointed.get(e.id) ?? []), { device: e.device, id: e.checkpoint_id }]);
    else if (e.type === 'verification' && e.status === 'regressed' && !e.report_only)
      this.calls.push({
        id: e.id,
        name: e.name,
        verification: { status: e.status, regressions: e.regressions, intended: e.intended, settle_ms: e.settle_ms },
        ...rewindable(this.checkpointed.get(e.id) ?? []),
      });
  }

  regressed(): RegressedCall[] {
    return [...this.calls];
  }

  /** Every device to rewind, each once, in the calls' order. */
  devices(): string[] {
    return [...new Set(this.calls.flatMap((c) => c.devices))];
  }

  /** The checkpoints to restore: per device, the one before the first regressed call that changed it. */
  checkpoints(): number[] {
    return checkpointsToRestore(this.calls);
  }
}

/** The question the TUI asks: `R2 lost OSPF neighbour 10.255.255.1: rewind R2, R3? y/n`. */
export function rewindQuestion(calls: readonly RegressedCall[], devices: readonly string[]): string {
  const findings = calls.flatMap((c) => c.verification.regressions);
  const first = findings[0] ? findingText(findings[0]) : 'the change regressed';
  const more = findings.length > 1 ? ` (+${findings.length - 1} more)` : '';
  return `${first}${more}: rewind ${devices.join(', ')}? y/n`;
}

/** Per device, the checkpoint before the first regressed call that changed it (the earlier state wins). */
export function checkpointsToRestore(calls: readonly RegressedCall[]): number[] {
  const byDevice = new Map<string, number>();
  for (const c of calls)
    c.devices.forEach((d, i) => {
      const id = c.checkpoints[i];
      if (id !== undefined && !byDevice.has(d.toLowerCase())) byDevice.set(d.toLowerCase(), id);
    });
  return [...byDevice.values()];
}

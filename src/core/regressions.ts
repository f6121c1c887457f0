/**
 * The regressions of a request, folded from its events: each configuration call whose
 * verification regressed (inject mode's report-only ones left out: the fault is the point),
 * with the devices it changed — those checkpointed before it ran, which a rewind restores.
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
}

export class RegressionWatch {
  private readonly checkpointed = new Map<string, string[]>();
  private readonly calls: RegressedCall[] = [];

  add(e: AgentEvent): void {
    if (e.type === 'checkpoint' && !e.error && e.device !== 'topology' && e.device !== 'all')
      this.checkpointed.set(e.id, [...(this.checkpointed.get(e.id) ?? []), e.device]);
    else if (e.type === 'verification' && e.status === 'regressed' && !e.report_only)
      this.calls.push({
        id: e.id,
        name: e.name,
        verification: { status: e.status, regressions: e.regressions, intended: e.intended, settle_ms: e.settle_ms },
        devices: this.checkpointed.get(e.id) ?? [],
      });
  }

  regressed(): RegressedCall[] {
    return [...this.calls];
  }

  /** Every device to rewind, each once, in the calls' order. */
  devices(): string[] {
    return [...new Set(this.calls.flatMap((c) => c.devices))];
  }
}

/** The question the TUI asks: `R2 lost OSPF neighbour 10.255.255.1: rewind R2, R3? y/n`. */
export function rewindQuestion(calls: readonly RegressedCall[], devices: readonly string[]): string {
  const findings = calls.flatMap((c) => c.verification.regressions);
  const first = findings[0] ? findingText(findings[0]) : 'the change regressed';
  const more = findings.length > 1 ? ` (+${findings.length - 1} more)` : '';
  return `${first}${more}: rewind ${devices.join(', ')}? y/n`;
}

/**
 * Which injection scenarios `gns3-copilot eval` can score: a trouble ticket to hand the
 * agent and a `diagnosis` block (keywords, and how a repair is told: its repair check, or
 * none for a link filter). The schema makes sure a scorable repair has its check.
 */
import type { InjectionScenario } from './schema.js';

export function isEvalReady(s: InjectionScenario): boolean {
  return s.ticket !== undefined && s.diagnosis !== undefined;
}

export interface EvalReadyCount {
  platform: string;
  /** eval-ready scenarios that list this platform (`any`: the link filters, which work on every lab) */
  ready: number;
  /** of them, scored on diagnosis only (no device configuration repairs them) */
  diagnosis_only: number;
  /** scenarios of the platform that are not eval-ready */
  not_ready: number;
}

/** Per platform, in the order of first appearance in the library. */
export function evalReadyCounts(scenarios: Iterable<InjectionScenario>): EvalReadyCount[] {
  const rows = new Map<string, EvalReadyCount>();
  for (const s of scenarios)
    for (const platform of s.platforms) {
      const row = rows.get(platform) ?? { platform, ready: 0, diagnosis_only: 0, not_ready: 0 };
      rows.set(platform, row);
      if (!isEvalReady(s)) row.not_ready++;
      else {
        row.ready++;
        if (s.diagnosis!.repair === 'none') row.diagnosis_only++;
      }
    }
  return [...rows.values()];
}

/** How eval scores the scenario, in one line (`skills show`): what it is scored on, or why it cannot be. */
export function evalScoring(s: InjectionScenario): string {
  if (!isEvalReady(s)) {
    const missing = [s.ticket === undefined ? 'trouble ticket' : '', s.diagnosis === undefined ? 'diagnosis' : ''].filter(Boolean);
    return `not scorable by eval (it has no ${missing.join(' and ')})`;
  }
  const words = s.diagnosis!.keywords.join(', ');
  return s.diagnosis!.repair === 'none'
    ? `scored on diagnosis only: no device configuration removes it (keywords: ${words})`
    : `scored on diagnosis (keywords: ${words}) and repair (its repair check)`;
}

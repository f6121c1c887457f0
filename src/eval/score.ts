/**
 * How one answer is scored against the fault it was given: `detected` — the
 * answer names the faulty device (for a link fault: one of its two ends); `localized` — it
 * names the device and the scenario's category or one of its diagnosis keywords. Pure, so
 * the words a model must say are the same on every lab. Repair and regressions are read from
 * the lab (./run-one.ts), never from the answer.
 */
import { keywordsIn } from '../skills/schema.js';

export interface ScoredFault {
  /** the faulty device, or a link's two ends */
  devices: readonly string[];
  category: string;
  keywords: readonly string[];
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The name as a whole word: "R1" is named by "on R1," but not by "R10". */
export function names(text: string, name: string): boolean {
  return new RegExp(`(^|[^a-z0-9])${escape(name.toLowerCase())}($|[^a-z0-9])`).test(text.toLowerCase());
}

export function scoreAnswer(answer: string, f: ScoredFault): { detected: boolean; localized: boolean } {
  const detected = f.devices.some((d) => names(answer, d));
  const why = keywordsIn(answer, [...f.keywords, f.category]).length > 0;
  return { detected, localized: detected && why };
}

/**
 * How every surface writes a Validator's verdict (the TUI, the text printer, `/tree` and
 * `sessions show`): a mark and the words, with why a validation was skipped.
 */
import type { EventOf } from './events.js';

export type VerdictWord = EventOf<'validation'>['verdict'];

export const VERDICT_MARK: Readonly<Record<VerdictWord, string>> = { pass: '✓', fail: '✗', uncertain: '?', skipped: '–' };

/** `✓ validation pass`, `– validation skipped (budget)`; `who` names whose (a sub-agent, the root answer). */
export function verdictWords(v: { verdict: VerdictWord; reason?: string }, who?: string): string {
  return `${VERDICT_MARK[v.verdict]} ${who ? `${who} ` : ''}validation ${v.verdict}${v.reason ? ` (${v.reason})` : ''}`;
}

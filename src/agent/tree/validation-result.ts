/**
 * What the Validator says about a sub-agent's report or the root's answer (stored with the
 * node or the tree, shown by every surface); `skipped` is the root answer's when no
 * validation could run (`reason`).
 */
export type Verdict = 'pass' | 'fail' | 'uncertain' | 'skipped';

export interface ValidationCheck {
  claim: string;
  ok: boolean;
  evidence: string;
  note?: string;
}

export interface ValidationResult {
  verdict: Verdict;
  checks: ValidationCheck[];
  summary: string;
  /** decided by the pre-checks alone (no Validator LLM call) */
  deterministic?: boolean;
  /** why the validation was skipped: the tree budget was gone */
  reason?: 'budget';
}

/** What the Validator says about a sub-agent's report (stored with the node, shown by every surface). */
export type Verdict = 'pass' | 'fail' | 'uncertain';

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
}

/**
 * What the automatic verification after a configuration change found (docs/tools.md,
 * Verification after a change): the tool's result carries it for the model, the `verification`
 * event for the front ends, the stored tool message for `sessions show`/`export`.
 * Field names are part of the external contract: do not rename.
 */

/** Something of the baseline that is missing or worse after the change. */
export interface VerificationFinding {
  device: string;
  kind: 'interface' | 'address' | 'ospf_neighbor' | 'bgp_peer' | 'route' | 'check';
  what: string;
  before: string;
  after: string;
}

export interface Verification {
  /** `error`: it could not decide (a device unreachable, a platform without readers), never a pass */
  status: 'pass' | 'regressed' | 'error';
  regressions: VerificationFinding[];
  /** differences the change's own lines name */
  intended: VerificationFinding[];
  /** from the end of the apply until the state was stable (or verify_timeout) */
  settle_ms: number;
  /** why it could not decide (status error) */
  reason?: string;
  /** inject mode: a regression is what the fault is for, reported only (never rewound, never exit 7) */
  report_only?: boolean;
}

/** `R2 lost OSPF neighbour 10.255.255.1` — a finding in a person's words. */
export function findingText(f: VerificationFinding): string {
  switch (f.kind) {
    case 'ospf_neighbor':
      return `${f.device} lost OSPF neighbour ${f.what}`;
    case 'bgp_peer':
      return `${f.device} lost BGP peer ${f.what}`;
    case 'route':
      return `${f.device} lost route ${f.what}`;
    case 'interface':
      return `${f.device} ${f.what} is ${f.after.split(' ')[0] ?? 'down'}`;
    case 'address':
      return `${f.device} lost address ${f.what}`;
    default:
      return `${f.device} ${f.kind} ${f.what}: ${f.before} → ${f.after}`;
  }
}

/** One line for a person: `✓ verified, settled in 2.1 s` / `✗ regressed: R2 ospf_neighbor 10.255.255.1 Full → absent`. */
export function verificationLine(v: Verification): string {
  if (v.status === 'pass') return `✓ verified, settled in ${(v.settle_ms / 1000).toFixed(1)} s`;
  if (v.status === 'error') return `✗ verification error: ${v.reason ?? 'cannot decide'}`;
  const first = v.regressions[0]!;
  const more = v.regressions.length > 1 ? ` (+${v.regressions.length - 1} more)` : '';
  return `✗ regressed: ${first.device} ${first.kind} ${first.what} ${first.before} → ${first.after}${more}`;
}

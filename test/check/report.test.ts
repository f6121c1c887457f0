/** The check report's tail line counts as the product prints counts: "1 error", never "1 errors". */
import { describe, expect, it } from 'vitest';
import { formatTable } from '../../src/check/report.js';
import type { CheckReport } from '../../src/check/run.js';

const report = (errors: number): CheckReport => ({
  project: 'lab',
  passed: 1,
  failed: 0,
  errors,
  score: 1,
  max_score: 1 + errors,
  checks: [
    { name: 'R1 ok', kind: 'command', status: 'pass', evidence: 'ok', points: 1, duration_ms: 1 },
    ...Array.from({ length: errors }, (_, i) => ({
      name: `R${i + 2} unreachable`,
      kind: 'command' as const,
      status: 'error' as const,
      evidence: 'console refused',
      points: 1,
      duration_ms: 1,
    })),
  ],
});

describe('formatTable', () => {
  it('says "1 error" and "2 errors"', () => {
    expect(formatTable(report(1))).toContain('1 passed, 0 failed, 1 error · score 1/2 · project lab\n');
    expect(formatTable(report(2))).toContain('1 passed, 0 failed, 2 errors · score 1/3 · project lab\n');
    expect(formatTable(report(1))).toMatch(/^! R2 unreachable\s+console refused$/m);
  });
});

/** The check report's tail line counts as the product prints counts: "1 error", never "1 errors". */
import { describe, expect, it } from 'vitest';
import { formatJunit, formatTable } from '../../src/check/report.js';
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

describe('names from a hostile lab', () => {
  const hostile: CheckReport = {
    ...report(0),
    project: 'lab\u001b]0;pwned\u0007',
    checks: [
      {
        name: 'node R1\u001b[2J\u001b]0;x\u0007 started',
        kind: 'node',
        status: 'fail',
        evidence: 'R1 \ud800 is \uffff stopped',
        points: 1,
        duration_ms: 1,
      },
    ],
  };

  it('are shown in the table, never obeyed as escape sequences', () => {
    const t = formatTable(hostile);
    expect(t).not.toMatch(/\u001b|\u0007/);
    expect(t).toContain('node R1');
  });

  it('keep the JUnit report well-formed XML 1.0 (no control characters, no lone surrogate, no U+FFFF)', () => {
    const x = formatJunit(hostile);
    // XML 1.0 Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]
    expect(x).toMatch(/^(?:[\t\n\r\u0020-\ud7ff\ue000-\ufffd]|[\ud800-\udbff][\udc00-\udfff])*$/);
    expect(x).toContain('R1  is  stopped');
  });
});

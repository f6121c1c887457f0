/**
 * The hostile cases a tester's pass over the built CLI broke, each re-run by the regression
 * test that holds it: `npm run test:hostile` (vitest.hostile.config.ts) runs exactly these,
 * and the whole suite runs them on every CI. A case names its file and the title of the test
 * (test/hostile/cases.test.ts keeps both true), so the list cannot point at a test that is gone.
 * The tests themselves stay with their subject instead of being copied here.
 */
export interface HostileCase {
  /** what the tester did */
  case: string;
  /** the test file, from the repository's root */
  file: string;
  /** the test's title (or the start of it) in that file */
  test: string;
}

export const HOSTILE_CASES: HostileCase[] = [
  { case: 'check file over 1 MB', file: 'test/cli/hostile-inputs.test.ts', test: 'a 10 MB file is refused by its size, never parsed' },
  { case: 'check file over the check count', file: 'test/cli/hostile-inputs.test.ts', test: 'checks are a bad file naming the count' },
  {
    case: 'check file alias bomb',
    file: 'test/cli/hostile-inputs.test.ts',
    test: 'a YAML alias bomb is a bad file, not an internal error',
  },
  {
    case: 'check file nested past the limit',
    file: 'test/cli/hostile-inputs.test.ts',
    test: 'nesting deeper than the limit is refused by line before the parser recurses into it',
  },
  { case: 'check file a FIFO', file: 'test/cli/hostile-inputs.test.ts', test: 'a FIFO is refused at once' },
  { case: '--junit it cannot write', file: 'test/cli/hostile-inputs.test.ts', test: '--junit to a folder or a missing folder is exit 2' },
  {
    case: 'verify_lab on a FIFO or an oversized file',
    file: 'test/cli/hostile-inputs.test.ts',
    test: 'verify_lab reads a check file through the same guards',
  },
  { case: 'concurrent faults restore', file: 'test/cli/hostile-inputs.test.ts', test: 'two `faults restore N` at once' },
  {
    case: 'cross-process fault slot (two mcp --mode inject servers)',
    file: 'test/cli/hostile-inputs.test.ts',
    test: 'apply one category on one link at once',
  },
  {
    case: 'rewind while another process runs a request of the session',
    file: 'test/undo/rewind-running-session.test.ts',
    test: 'a rewind while another process runs a request of the session is exit 2 naming it',
  },
  {
    case: 'duration budget across resume',
    file: 'test/agent/tree/duration-budget.test.ts',
    test: 'a session resumed hours after it started, whose requests ran seconds, still delegates',
  },
  { case: 'duration budget across --fork', file: 'test/agent/tree/duration-budget.test.ts', test: '--fork copies the spent running time' },
  {
    case: 'one-shot piped into head (EPIPE bookkeeping)',
    file: 'test/output/oneshot-closed-stdout.test.ts',
    test: 'a reader closing stdout mid-answer stops the printing',
  },
  {
    case: 'allow for this session, per device',
    file: 'test/tools/allowance-per-device-lab.test.ts',
    test: '"a" on a change to PC1 does not let the tool change PC2',
  },
];

/** The files `npm run test:hostile` runs. */
export const HOSTILE_FILES = [...new Set(HOSTILE_CASES.map((c) => c.file))];

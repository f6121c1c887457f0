// `npm run test:mutation` (stryker.config.json): the in-process tests of the mutated
// modules only. Mutants live in src/ and never reach dist/, so the e2e tests that run
// the built binary cannot kill any; leaving them out keeps each mutant's run short.
import { defineConfig } from 'vitest/config';

export const MUTATION_TESTS = [
  'test/security/sanitize-unit.test.ts',
  'test/security/redact-unit.test.ts',
  'test/security/boundary-unit.test.ts',
  'test/tools/gate.test.ts',
  'test/agent/limit-decision.test.ts',
  'test/agent/limits-unit.test.ts',
  'test/agent/tree/budget.test.ts',
  'test/agent/tree/budget-unit.test.ts',
  'test/agent/tree/ledger-unit.test.ts',
  'test/agent/tree/mode.test.ts',
  'test/config/agent-budget-env.test.ts',
  'test/faults/ledger-unit.test.ts',
];

// no global setup: these tests do not run dist/, so the suite's tsup build is not needed
export default defineConfig({ test: { include: MUTATION_TESTS, testTimeout: 30_000, pool: 'forks' } });

// The CI mutation step (.ci/run, stryker.ci.config.json): only the in-process unit
// tests of src/security/*, the approval gate, the limit decision and the tree budget's
// settings (budget.ts: its unit tests and the stored snapshot's, on an in-memory SQLite;
// agent-budget-env.ts: its env aliases) and the fault ledger the injection tools use
// (src/tools/fault-ledger.ts: its unit tests on a real sessions.db file, no device),
// so each mutant's run stays short (the tree ledger's graph tests are too slow for every CI
// run: npm run test:mutation).
import { defineConfig } from 'vitest/config';

export const CI_MUTATION_TESTS = [
  'test/security/sanitize-unit.test.ts',
  'test/security/redact-unit.test.ts',
  'test/security/boundary-unit.test.ts',
  'test/tools/gate.test.ts',
  'test/agent/limit-decision.test.ts',
  'test/agent/limits-unit.test.ts',
  'test/agent/tree/budget-unit.test.ts',
  'test/agent/tree/ledger-unit.test.ts',
  'test/config/agent-budget-env.test.ts',
  'test/faults/ledger-unit.test.ts',
];

export default defineConfig({ test: { include: CI_MUTATION_TESTS, testTimeout: 30_000, pool: 'forks' } });

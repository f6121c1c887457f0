// The CI mutation step (.ci/run, stryker.ci.config.json): only the in-process unit
// tests of src/security/*, the approval gate and the limit decision, so each mutant's
// run stays short (the tree budget's tests are too slow for every CI run: npm run test:mutation).
import { defineConfig } from 'vitest/config';

export const CI_MUTATION_TESTS = [
  'test/security/sanitize-unit.test.ts',
  'test/security/redact-unit.test.ts',
  'test/security/boundary-unit.test.ts',
  'test/tools/gate.test.ts',
  'test/agent/limit-decision.test.ts',
  'test/agent/limits-unit.test.ts',
];

export default defineConfig({ test: { include: CI_MUTATION_TESTS, testTimeout: 30_000, pool: 'forks' } });

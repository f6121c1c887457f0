import { defineConfig } from 'vitest/config';
import { SHARED_PROCESS_TESTS } from './vitest.shared.js';

export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Two cores: lab tests start real routers; keep file-level parallelism modest.
    maxWorkers: 2,
    pool: 'forks',
    // Every file in a process of its own, except the in-process files that set no process-wide
    // state (vitest.shared.ts): those share their worker and its imports.
    projects: [
      {
        extends: true,
        test: {
          name: 'isolated',
          include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
          exclude: ['**/node_modules/**', ...SHARED_PROCESS_TESTS],
        },
      },
      {
        extends: true,
        test: { name: 'shared', include: SHARED_PROCESS_TESTS, isolate: false, setupFiles: ['test/helpers/shared-env.ts'] },
      },
    ],
  },
});

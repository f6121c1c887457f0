// `npm run test:hostile`: the hostile cases a tester's pass broke, re-run by their
// regression tests (listed in test/hostile/cases.ts). Some need root and a lab peer, as in CI.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';
import { HOSTILE_FILES } from './test/hostile/cases.js';

// not mergeConfig: it would add these files to the base's include (the whole suite) instead of replacing it
export default defineConfig({ ...base, test: { ...base.test, include: HOSTILE_FILES } });

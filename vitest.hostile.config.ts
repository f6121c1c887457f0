// `npm run test:hostile`: the hostile cases a tester's pass broke, re-run by their
// regression tests (listed in test/hostile/cases.ts). Some need root and a lab peer, as in CI.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';
import { HOSTILE_FILES } from './test/hostile/cases.js';

// not mergeConfig: it would add these files to the base's include (the whole suite) instead of replacing it;
// and without the base's projects, whose includes would replace this one (these files run isolated)
const { projects: _projects, ...test } = base.test ?? {};
export default defineConfig({ ...base, test: { ...test, include: HOSTILE_FILES } });

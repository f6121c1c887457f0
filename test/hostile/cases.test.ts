/**
 * The hostile-cases list (./cases.ts) points at tests that exist: each file is there and
 * holds a test of that title, so `npm run test:hostile` re-runs every case it names.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HOSTILE_CASES, HOSTILE_FILES } from './cases.js';
import hostileConfig from '../../vitest.hostile.config.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('the hostile cases', () => {
  it.each(HOSTILE_CASES)('$case: a test of that title in $file', ({ file, test }) => {
    const text = readFileSync(root + file, 'utf8');
    const titles = [...text.matchAll(/\bit(?:\.each\([^)]*\))?\(\s*(['"`])(.*?)\1/gs)].map((m) => m[2]!);
    expect(
      titles.some((t) => t.includes(test)),
      `${file} has no test titled "${test}…"`,
    ).toBe(true);
  });

  it('npm run test:hostile runs exactly their files', () => {
    expect(hostileConfig.test?.include).toEqual(HOSTILE_FILES);
  });
});

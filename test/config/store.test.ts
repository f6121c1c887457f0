import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { updateUserConfig } from '../../src/config/store.js';

const tmpFile = () => join(mkdtempSync(join(tmpdir(), 'gns3c-store-')), 'gns3-copilot', 'config.json');

describe('updateUserConfig', () => {
  it('creates the file and its directory, keeps unrelated keys', async () => {
    const file = tmpFile();
    await updateUserConfig((c) => ({ ...c, a: 1 }), file);
    await updateUserConfig((c) => ({ ...c, b: 2 }), file);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ a: 1, b: 2 });
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('clears a lock left behind by a dead process', async () => {
    const file = tmpFile();
    await updateUserConfig((c) => c, file);
    writeFileSync(`${file}.lock`, '2147483646'); // no such pid
    const t0 = Date.now();
    await updateUserConfig((c) => ({ ...c, x: true }), file);
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ x: true });
  });

  it('re-applies the change on top of a write that happened after our read', async () => {
    const file = tmpFile();
    await updateUserConfig(() => ({ a: 1 }), file);
    let calls = 0;
    const r = await updateUserConfig((c) => {
      calls++;
      // Another writer sneaks in between our read and our write, the first time only.
      if (calls === 1) writeFileSync(file, JSON.stringify({ a: 1, other: 'theirs' }));
      return { ...c, mine: 'ours' };
    }, file);
    expect(calls).toBe(2);
    expect(r.retries).toBe(1);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ a: 1, other: 'theirs', mine: 'ours' });
  });

  it('refuses to overwrite a file that is not valid JSON', async () => {
    const file = tmpFile();
    await updateUserConfig(() => ({}), file);
    writeFileSync(file, '{ broken');
    await expect(updateUserConfig((c) => ({ ...c, a: 1 }), file)).rejects.toThrow(/is not valid JSON/);
    expect(readFileSync(file, 'utf8')).toBe('{ broken');
  });
});

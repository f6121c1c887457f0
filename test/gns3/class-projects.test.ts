/** The shared --projects/--jobs pieces: the jobs bound, the flag clash, and the per-pass class signal. */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { checkProjectFlags, parseJobs, withClassSignal } from '../../src/gns3/class-projects.js';

describe('--jobs and --projects', () => {
  it('--jobs is 1..32, default 8; anything else is a usage error (exit 2)', () => {
    expect(parseJobs(undefined)).toBe(8);
    expect(parseJobs('1')).toBe(1);
    expect(parseJobs('32')).toBe(32);
    for (const bad of ['0', '33', '2.5', '-1', 'many', ''])
      expect(() => parseJobs(bad)).toThrow(
        expect.objectContaining({ exitCode: 2, message: `--jobs: must be an integer 1..32 (got "${bad}")` }),
      );
  });

  it('--project with --projects is a usage error; either alone is fine', () => {
    expect(() => checkProjectFlags('student-*', true)).toThrow(expect.objectContaining({ exitCode: 2 }));
    expect(() => checkProjectFlags('student-*', false)).not.toThrow();
    expect(() => checkProjectFlags(undefined, true)).not.toThrow();
  });
});

describe('withClassSignal', () => {
  it('a pass gets its own signal: aborted with the command, no listener left on the command signal after', async () => {
    const command = new AbortController();
    let seen: AbortSignal | undefined;
    await withClassSignal(command.signal, async (round) => {
      seen = round;
      // thirty projects listening at once: no listener-limit warning about the pass's signal
      const warnings: string[] = [];
      const onWarning = (w: Error) => warnings.push(w.name);
      process.on('warning', onWarning);
      for (let i = 0; i < 30; i++) round.addEventListener('abort', () => undefined);
      await new Promise((res) => setImmediate(res));
      process.off('warning', onWarning);
      expect(warnings).not.toContain('MaxListenersExceededWarning');
      expect(getEventListeners(command.signal, 'abort')).toHaveLength(1);
    });
    expect(getEventListeners(command.signal, 'abort')).toHaveLength(0);
    expect(seen?.aborted).toBe(false);

    const aborted = withClassSignal(
      command.signal,
      (round) => new Promise((_, reject) => round.addEventListener('abort', () => reject(round.reason))),
    );
    command.abort('interrupted');
    await expect(aborted).rejects.toBe('interrupted');
    await withClassSignal(command.signal, async (round) => expect(round.aborted).toBe(true));
  });
});

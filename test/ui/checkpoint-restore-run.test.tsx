/**
 * /checkpoint restore as a run of its own in the TUI (the App on ink-testing-library): the
 * start is announced, Esc aborts it through the signal the restore was handed and says so in
 * one line, the input line is free again, and the next restore prints its outcome — restored,
 * or in the error tone with what remains. The restore itself is tested on a lab
 * (test/checkpoints/named-checkpoint-lab.test.ts); here the service is a stand-in that waits.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { mount, KEY } from './harness.js';
import { testSettings } from './helpers/fake-services.js';
import { until } from './helpers/scripted-session.js';
import { stripAnsi } from '../../src/ui/style.js';
import type { NamedRestoreReport } from '../../src/undo/named-restore.js';
import type { DeviceReport } from '../../src/undo/restore-engine.js';
import type { TuiCheckpointRestoreOptions } from '../../src/undo/tui-checkpoint.js';

process.env.GNS3_COPILOT_KEYCHAIN = 'off';
afterEach(() => cleanup());

const device = (name: string, status: DeviceReport['status'], remaining: string[] = []): DeviceReport => ({
  name,
  status,
  request_no: 0,
  commands: [],
  display: [],
  remaining,
  diff: '',
});

const report = (devices: DeviceReport[]): NamedRestoreReport => ({
  checkpoint: 'base',
  project: 'lab',
  project_id: 'p1',
  saved_at: '2026-01-01T00:00:00Z',
  note: null,
  devices,
  topology: {
    status: 'unchanged',
    errors: [],
    delete_links: [],
    delete_nodes: [],
    rename: [],
    power: [],
    filters: [],
    missing_nodes: [],
    missing_links: [],
  },
});

function mountWithRestore(outcomes: NamedRestoreReport[]) {
  const t = mount({ settings: testSettings({ project: 'lab' }), rows: 40, columns: 120 });
  const calls: TuiCheckpointRestoreOptions[] = [];
  // the first restore waits until it is aborted; the next ones end with the given reports
  t.services.restoreCheckpoint = (_s, o) => {
    calls.push(o);
    if (calls.length === 1)
      return new Promise((_resolve, reject) => o.signal.addEventListener('abort', () => reject(new Error('restore aborted'))));
    return Promise.resolve(outcomes[calls.length - 2]!);
  };
  const waitSeen = (text: string) =>
    until(() => t.frames.some((f) => stripAnsi(f).includes(text)), 5000, `the screen to have shown ${text}\n${t.frame()}`);
  return { ...t, calls, waitSeen };
}

describe('/checkpoint restore as a run', () => {
  it('Esc aborts a running restore through its signal; the next restore runs and reports per device', async () => {
    const t = mountWithRestore([report([device('R1', 'restored')]), report([device('R2', 'remaining', ['ip address 10.0.0.1/24'])])]);
    await t.ready();
    await t.type('/checkpoint restore base R1');
    await t.waitSeen('Restoring checkpoint base on R1…');
    expect(t.calls[0]).toMatchObject({ name: 'base', devices: ['R1'] });
    expect(t.calls[0]!.signal.aborted).toBe(false);
    await t.press(KEY.esc);
    await t.waitSeen('✗ restore aborted');
    expect(t.calls[0]!.signal.aborted).toBe(true);

    // the run has ended: the next one starts instead of being refused as running already
    await t.type('/checkpoint restore base');
    await t.waitSeen('✓ restore of checkpoint base: restored');
    await t.waitSeen('R1: restored');
    await t.type('/checkpoint restore base');
    await t.waitSeen('✗ restore of checkpoint base: not everything was restored');
    await t.waitSeen('R2: NOT fully restored');
    await t.waitSeen('ip address 10.0.0.1/24');
    expect(t.calls).toHaveLength(3);
    expect(t.frames.some((f) => stripAnsi(f).includes('running already'))).toBe(false);
  }, 30_000);
});

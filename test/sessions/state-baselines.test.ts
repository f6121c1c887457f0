/**
 * The baselines a change's verification stores in sessions.db (migration 8) for `diff --state`:
 * per device the first one since a request, an unreadable state never kept, and a deleted
 * session's rows gone with it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { SessionStore } from '../../src/sessions/store.js';
import { SCHEMA_VERSION } from '../../src/sessions/migrations.js';
import { StateBaselineStore } from '../../src/sessions/state-baselines.js';
import type { DeviceState } from '../../src/check/state.js';
import { tempDir } from '../agent/helpers.js';

const dir = tempDir('gc-baselines-');
afterAll(() => dir.cleanup());

const st = (device: string, state: string, error?: string): DeviceState => ({
  device,
  interfaces: { eth0: { state, addresses: ['10.0.1.1/24'] } },
  ospf: {},
  bgp: {},
  routes: {},
  ...(error ? { error } : {}),
});

describe('StateBaselineStore', () => {
  it('migration 8 makes the table; per device the first baseline since request N; unreadable states are not kept', async () => {
    const store = await SessionStore.open(dir.dir);
    try {
      expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(8);
      const b = new StateBaselineStore(store.db);
      b.save('s1', 1, 'call-a', [st('R1', 'up'), st('R2', 'up', 'cannot reach R2')]);
      b.save('s1', 2, 'call-b', [st('r1', 'down'), st('R2', 'down')]);
      b.save('s2', 1, 'call-c', [st('R9', 'up')]);
      expect(b.firstSince<DeviceState>('s1', 1).map((x) => [x.device, x.request_no, x.call_id, x.state.interfaces.eth0!.state])).toEqual([
        ['R1', 1, 'call-a', 'up'],
        ['R2', 2, 'call-b', 'down'],
      ]);
      expect(b.firstSince('s1', 2).map((x) => [x.device, x.request_no])).toEqual([
        ['r1', 2],
        ['R2', 2],
      ]);
      expect(b.firstSince('s1', 3)).toEqual([]);
      // deleting a session drops its baselines, not another session's
      const row = store.create({ copilot_mode: 'lab_automation_assistant', agent_mode: 'flat' });
      b.save(row.id, 1, 'call-d', [st('R5', 'up')]);
      expect(store.delete(row.id)).toBe(true);
      expect(b.firstSince(row.id, 1)).toEqual([]);
      expect(b.firstSince('s2', 1).map((x) => x.device)).toEqual(['R9']);
    } finally {
      store.close();
    }
  });
});

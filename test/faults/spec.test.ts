/**
 * Turning an injection's `fault` argument into a ledger entry before anything is
 * applied (src/faults/spec.ts) over the built-in skill library, and the ledger's
 * store on a real sessions.db.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SkillStore } from '../../src/skills/loader.js';
import { builtinSkillsDir } from '../../src/skills/paths.js';
import { matchInject, resolveFault, type FaultTarget } from '../../src/faults/spec.js';
import { FaultStore } from '../../src/faults/store.js';
import { scoreOf } from '../../src/faults/check.js';
import { SessionStore } from '../../src/sessions/store.js';

const lib = new SkillStore([builtinSkillsDir()]).load();
const device = (commands: string[], platform?: string): FaultTarget => ({ kind: 'device', name: 'R1', platform, commands });
const link: FaultTarget = {
  kind: 'link',
  label: 'R1:e0 <-> R2:e0',
  linkId: 'L1',
  ends: ['R1:e0', 'R2:e0'],
  filters: { packet_loss: [30] },
};

describe('resolveFault', () => {
  it('reads the parameters out of the lines sent and fills the restore and the repair check', () => {
    const r = resolveFault({ scenario: 'ip_address_removed' }, device(['interface eth2', 'no ip address 10.0.3.1/24']), lib, 'ccie');
    expect(r).toEqual({
      ok: true,
      fault: {
        target_kind: 'device',
        target: 'R1',
        scenario: 'ip_address_removed',
        category: 'addressing',
        difficulty: 'easy',
        restore: {
          tool: 'execute_multiple_device_config_commands',
          args: { device_configs: [{ device_name: 'R1', config_commands: ['interface eth2', 'ip address 10.0.3.1/24'] }] },
        },
        repair_check: { interface: { device: 'R1', name: 'eth2', ip: '10.0.3.1/24' } },
      },
    });
    expect(
      matchInject(lib.injection.get('ospf_area_mismatch')!, ['router ospf', 'no network 10.0.9.0/24 area 0', 'network 10.0.9.0/24 area 1']),
    ).toEqual({
      platform: 'frr',
      values: { network: '10.0.9.0/24' },
    });
  });

  it('refuses what it cannot complete, naming the field: a missing parameter, a bad check, a level, a wrong tool', () => {
    const err = (r: ReturnType<typeof resolveFault>) => (r.ok ? 'ok' : r.error);
    // lines that do not follow the scenario: its placeholders stay unknown
    expect(err(resolveFault({ scenario: 'interface_shutdown' }, device(['interface eth0', 'shutdown', 'exit']), lib, 'ccie'))).toMatch(
      /^fault.restore_commands: required: scenario interface_shutdown has no restore for R1's platform \(unknown\)$/,
    );
    expect(err(resolveFault({ scenario: 'interface_shutdown' }, device(['interface eth0', 'shutdown', 'exit'], 'frr'), lib, 'ccie'))).toBe(
      'fault.parameters.interface: needed to fill the restore commands',
    );
    expect(
      err(
        resolveFault(
          {
            category: 'acl',
            difficulty: 'medium',
            restore_commands: ['no access-list 1'],
            repair_check: { route: { device: 'R1', prefix: '10.0.0.0' } },
          },
          device(['access-list 1 deny any']),
          lib,
          'ccie',
        ),
      ),
    ).toBe('fault.repair_check.route.prefix: a prefix like 10.0.1.0/24');
    expect(err(resolveFault({ category: 'acl', difficulty: 'medium', restore_commands: ['x'] }, device(['y']), lib, 'ccie'))).toMatch(
      /^fault.repair_check: required: a check in verify_lab's schema/,
    );
    expect(err(resolveFault({ scenario: 'ospf_cost_detour' }, device(['interface eth0', 'ip ospf cost 1000']), lib, 'ccna'))).toBe(
      'fault: a medium fault; inject_level ccna offers easy faults only',
    );
    expect(err(resolveFault({ scenario: 'link_packet_loss_30' }, device(['x']), lib, 'ccie'))).toMatch(
      /is a link fault; apply it with manage_gns3_packet_filter/,
    );
    expect(err(resolveFault({ scenario: 'ospf_hello_mismatch' }, device(['x']), lib, 'ccie'))).toMatch(
      /^fault.scenario: unknown scenario "ospf_hello_mismatch"/,
    );
    expect(err(resolveFault({}, device(['x']), lib, 'ccie'))).toMatch(/^fault.category: required/);
  });

  it('a link fault is undone by clearing the filters it set and is fixed when the link carries none', () => {
    const r = resolveFault({ scenario: 'link_packet_loss_30' }, link, lib, 'ccie');
    expect(r).toMatchObject({
      ok: true,
      fault: {
        target_kind: 'link',
        target: 'R1:e0 <-> R2:e0',
        category: 'link',
        restore: { tool: 'manage_gns3_packet_filter', args: { link: 'L1', action: 'clear', filters: { packet_loss: [] } } },
        repair_check: { link: { a: 'R1:e0', b: 'R2:e0', clean: true } },
      },
    });
  });
});

describe('FaultStore', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gc-faults-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the first passing check as the fix time, finds open faults by target and category, scores by difficulty', async () => {
    const sessions = await SessionStore.open(dir);
    try {
      const store = new FaultStore(sessions.db);
      const base = {
        session_id: 's1',
        project_id: 'p1',
        project_name: 'lab',
        target_kind: 'device' as const,
        applied: ['x'],
        restore: { tool: 'execute_multiple_device_config_commands' as const, args: {} },
        repair_check: { command: { device: 'R1', run: 'show x', expect: { contains: 'y' } } },
      };
      const a = store.record({ ...base, target: 'R1', category: 'ospf', difficulty: 'hard' }, new Date('2025-12-31T00:00:00Z'));
      const b = store.record({ ...base, target: 'R2', category: 'ospf', difficulty: 'easy' });
      expect(store.openOn('p1', 'r1', 'ospf')?.id).toBe(a.id);
      expect(store.openOn('p1', 'R1', 'bgp')).toBeUndefined();
      store.recordCheck(a.id, { status: 'fail', evidence: 'no' }, new Date('2026-01-01T00:00:00Z'));
      store.recordCheck(a.id, { status: 'pass', evidence: 'yes' }, new Date('2026-01-01T00:01:00Z'));
      const later = store.recordCheck(a.id, { status: 'pass', evidence: 'yes' }, new Date('2026-01-01T00:02:00Z'));
      expect(later.fixed_at).toBe('2026-01-01T00:01:00.000Z');
      expect(store.openOn('p1', 'R1', 'ospf')).toBeUndefined();
      expect(store.checks(a.id).map((c) => c.status)).toEqual(['fail', 'pass', 'pass']);
      expect(scoreOf(store.list())).toEqual({ score: 3, max_score: 4, open: 1, fixed: 1, restored: 0 });
      // undoing a fault nobody fixed is not fixing it: it stays in the score, not fixed
      expect(store.markRestored(b.id).state).toBe('restored_unfixed');
      expect(scoreOf(store.list({ project: 'lab' }))).toEqual({ score: 3, max_score: 4, open: 0, fixed: 1, restored: 1 });
      expect(store.list({ project: 'other' })).toEqual([]);
    } finally {
      sessions.close();
    }
  });
});

/**
 * The report lines a session's rewind and a named checkpoint's restore share: each words a
 * device with nothing saved in its own way, a diff says `changed` where a restore would send
 * something, only a restore's plan lists the commands, and what remains is listed after one.
 */
import { describe, expect, it } from 'vitest';
import { reportText, rewindSummary } from '../../src/undo/rewind-report.js';
import { namedReportText, namedRestoreSummary } from '../../src/undo/named-report.js';
import type { DeviceReport } from '../../src/undo/restore-engine.js';
import type { RewindReport } from '../../src/undo/rewind.js';
import type { NamedRestoreReport } from '../../src/undo/named-restore.js';

const device = (name: string, status: DeviceReport['status'], o: Partial<DeviceReport> = {}): DeviceReport => ({
  name,
  status,
  request_no: 1,
  commands: [],
  display: [],
  remaining: [],
  diff: '',
  ...o,
});
const R1 = device('R1', 'planned', { display: ['interface eth0', ' ip address 10.0.0.1/24'], diff: '-ip address 10.0.0.1/24' });
const R2 = device('R2', 'no_checkpoint', { error: 'console unreachable' });
const R3 = device('R3', 'remaining', { remaining: ['ip ospf cost 5'] });
const topology = {
  status: 'planned' as const,
  errors: ['link L9 is gone'],
  delete_links: [{ link_id: 'l1', label: 'R1:e1-R3:e0' }],
  delete_nodes: [{ node_id: 'n9', name: 'R9' }],
  rename: [{ node_id: 'n1', from: 'Core1', to: 'R1' }],
  power: [{ node_id: 'n2', name: 'R2', from: 'stopped', to: 'started' }],
  filters: [],
};
const rewind: RewindReport = { session_id: 'abcdef0123456789', to: 2, devices: [R1, R2, R3], topology };
const named: NamedRestoreReport = {
  checkpoint: 'base',
  project: 'lab',
  project_id: 'p1',
  saved_at: '2026-01-01T00:00:00Z',
  note: null,
  devices: [R1, R2, R3],
  topology: { ...topology, missing_nodes: [{ node_id: 'n7', name: 'R7' }], missing_links: [] },
};

describe('the lines rewind and checkpoint reports share', () => {
  it('a diff says changed and lists no commands; a restore plan lists them; what remains follows', () => {
    for (const text of [reportText(rewind, 'diff'), namedReportText(named, 'diff')]) {
      expect(text).toContain('\nR1: changed\n-ip address 10.0.0.1/24\n');
      expect(text).not.toContain('commands:');
      expect(text).toContain('R3: NOT fully restored\nstill different:\n  ip ospf cost 5');
      expect(text).toContain('  rename Core1 → R1\n  R2: stopped → started\n');
      expect(text).toContain('  error: link L9 is gone');
    }
    for (const text of [reportText(rewind, 'rewind'), namedReportText(named, 'restore')])
      expect(text).toContain('R1: to restore\n-ip address 10.0.0.1/24\ncommands:\n  interface eth0\n   ip address 10.0.0.1/24');
  });

  it('each report words a device with nothing saved and a node it would delete in its own way', () => {
    expect(reportText(rewind, 'rewind')).toContain('R2: no checkpoint — console unreachable');
    expect(reportText(rewind, 'rewind')).toContain('  delete node R9 (created by the session)');
    expect(namedReportText(named, 'restore')).toContain('R2: not saved — console unreachable');
    expect(namedReportText(named, 'restore')).toContain('  delete link R1:e1-R3:e0 (not in the checkpoint)');
    expect(namedReportText(named, 'restore')).toContain(
      '  node R7 was deleted since: a restore cannot create it again\n  error: link L9 is gone',
    );
  });

  it('the outcome lists each device and what remains under it', () => {
    const r = rewindSummary({ ...rewind, devices: [R2, R3] });
    const n = namedRestoreSummary({ ...named, devices: [R2, R3] });
    expect(r.text).toContain('  R2: no checkpoint — console unreachable\n  R3: NOT fully restored\n    ip ospf cost 5');
    expect(n.text).toContain('  R2: not saved — console unreachable\n  R3: NOT fully restored\n    ip ospf cost 5');
    expect([r.complete, n.complete]).toEqual([false, false]);
  });
});

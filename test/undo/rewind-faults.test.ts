/**
 * Which open faults of an inject session a rewind undid (src/undo/rewind-faults.ts):
 * the choice per device and link status and checkpoint time, then the marking on a real
 * sessions.db (only that session's open faults, marked restored).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HumanMessage } from '@langchain/core/messages';
import { SessionStore } from '../../src/sessions/store.js';
import { CheckpointStore } from '../../src/checkpoints/store.js';
import { FaultStore, type Fault, type NewFault } from '../../src/faults/store.js';
import { faultsBroughtBack, faultsUndone, markFaultsUndone, type RewindOutcome } from '../../src/undo/rewind-faults.js';
import type { DeviceCheckpoint, TopologyCheckpoint } from '../../src/checkpoints/types.js';
import { reportText, rewindSummary } from '../../src/undo/rewind-report.js';
import type { RewindReport } from '../../src/undo/rewind.js';

const T = (s: number) => new Date(Date.UTC(2026, 11, 5, 6, 0, s)).toISOString();

let nextId = 1;
function fault(target: string, injectedAt: string, over: Partial<Fault> = {}): Fault {
  const link = target.includes('<->');
  return {
    id: nextId++,
    session_id: 'S',
    project_id: 'p',
    project_name: 'lab',
    call_id: null,
    target_kind: link ? 'link' : 'device',
    target,
    scenario: null,
    category: 'c',
    difficulty: 'easy',
    applied: [],
    restore: link
      ? { tool: 'manage_gns3_packet_filter', args: { link: 'L1', action: 'clear' } }
      : { tool: 'execute_multiple_device_config_commands', args: {} },
    repair_check: { node: { name: target } },
    injected_at: injectedAt,
    fixed_at: null,
    restored_at: null,
    state: 'open',
    ...over,
  };
}

const cp = (device: string, at: string, config: string | null = 'cfg'): DeviceCheckpoint => ({
  id: 0,
  session_id: 'S',
  request_no: 2,
  call_id: null,
  device,
  config,
  error: null,
  created_at: at,
});
const topo = (linkId: string, at: string): TopologyCheckpoint => ({
  id: 0,
  session_id: 'S',
  request_no: 2,
  call_id: null,
  before: { nodes: [], links: [{ link_id: linkId, filters: {} }] },
  created: { nodes: [], links: [] },
  created_at: at,
});

const outcome = (
  devices: Record<string, string>,
  topology: { status: string; filters: string[] } = { status: 'unchanged', filters: [] },
  resumed = false,
): RewindOutcome => ({
  devices: Object.entries(devices).map(([name, status]) => ({ name, status })),
  topology: { status: topology.status, filters: topology.filters.map((link_id) => ({ link_id })) },
  ...(resumed ? { resumed } : {}),
});

describe('faultsBroughtBack', () => {
  it('a restored fault is back when its target returns to a checkpoint taken after it was applied and before it was restored', () => {
    // applied at 5, the checkpoint rewound to taken at 10 (it holds the fault), restored at 15
    const back = fault('R1', T(5), { restored_at: T(15), state: 'restored_unfixed' });
    const restoredFirst = fault('R2', T(5), { restored_at: T(8), state: 'restored_unfixed' }); // restored before the checkpoint
    const later = fault('R3', T(12), { restored_at: T(15), state: 'restored_unfixed' }); // applied after it: not in the state rewound to
    const notBack = fault('R4', T(5), { restored_at: T(15), state: 'restored_unfixed' }); // its device not verified back
    const link = fault('R1<->R2', T(5), { restored_at: T(15), state: 'restored_unfixed' });
    const found = faultsBroughtBack({
      restored: [back, restoredFirst, later, notBack, link],
      outcome: outcome({ R1: 'restored', R2: 'restored', R3: 'restored', R4: 'remaining' }, { status: 'restored', filters: ['L1'] }),
      deviceCheckpoints: ['R1', 'R2', 'R3', 'R4'].map((d) => cp(d, T(10))),
      topologyCheckpoints: [topo('L1', T(10))],
    });
    expect(found.map((f) => f.target)).toEqual(['R1', 'R1<->R2']);
  });
});

describe('faultsUndone', () => {
  it('a device fault is undone when its device is restored and it came after the checkpoint rewound to', () => {
    const before = fault('R1', T(5));
    const after = fault('r1', T(20));
    const got = faultsUndone({
      open: [before, after],
      outcome: outcome({ R1: 'restored' }),
      deviceCheckpoints: [cp('R1', T(10))],
      topologyCheckpoints: [],
    });
    expect(got.map((f) => f.id)).toEqual([after.id]);
  });

  it('a device not fully restored, untouched, without a checkpoint or failed keeps its faults open', () => {
    const faults = ['R2', 'R3', 'R4', 'R5', 'R6'].map((d) => fault(d, T(20)));
    const got = faultsUndone({
      open: faults,
      outcome: outcome({ R2: 'remaining', R3: 'unchanged', R4: 'error', R5: 'no_checkpoint', R6: 'restored' }),
      deviceCheckpoints: [cp('R2', T(10)), cp('R3', T(10)), cp('R4', T(10)), cp('R5', T(10), null)],
      topologyCheckpoints: [],
    });
    expect(got).toEqual([]);
  });

  it('a resumed rewind also counts what the run that died put back (unchanged now)', () => {
    const f = fault('R3', T(20));
    const l = fault('R1:e0 <-> R2:e0', T(20));
    const got = faultsUndone({
      open: [f, l],
      outcome: outcome({ R3: 'unchanged' }, { status: 'unchanged', filters: [] }, true),
      deviceCheckpoints: [cp('R3', T(10))],
      topologyCheckpoints: [topo('L1', T(10))],
    });
    expect(got.map((x) => x.id)).toEqual([f.id, l.id]);
  });

  it('a link fault is undone when the topology rewind set its filters back and completed', () => {
    const l = fault('R1:e0 <-> R2:e0', T(20));
    const earlier = fault('R1:e0 <-> R2:e0', T(5));
    const input = (status: string, filters: string[]) => ({
      open: [l, earlier],
      outcome: outcome({}, { status, filters }),
      deviceCheckpoints: [],
      topologyCheckpoints: [topo('L1', T(10)), topo('L1', T(30))],
    });
    expect(faultsUndone(input('restored', ['L1'])).map((x) => x.id)).toEqual([l.id]);
    expect(faultsUndone(input('partial', ['L1']))).toEqual([]);
    expect(faultsUndone(input('restored', ['L9']))).toEqual([]);
    // no checkpoint of the link from the rewind point on (e.g. a rewind limited to --device)
    expect(faultsUndone({ ...input('restored', ['L1']), topologyCheckpoints: [] })).toEqual([]);
  });

  it('a fault injected before request `to` started stays open', () => {
    const f = fault('R1', T(20));
    const got = faultsUndone({
      open: [f],
      outcome: outcome({ R1: 'restored' }),
      deviceCheckpoints: [cp('R1', T(10))],
      topologyCheckpoints: [],
      requestStart: T(25),
    });
    expect(got).toEqual([]);
  });
});

describe('markFaultsUndone on sessions.db', () => {
  let dir: string;
  let store: SessionStore;
  let cps: CheckpointStore;
  let faults: FaultStore;
  const base: Omit<NewFault, 'session_id' | 'target'> = {
    project_id: 'p',
    project_name: 'lab',
    target_kind: 'device',
    category: 'interface',
    difficulty: 'easy',
    applied: ['interface lo', 'description x'],
    restore: { tool: 'execute_multiple_device_config_commands', args: {} },
    repair_check: { config: { device: 'R1', section: 'interface lo', lacks: 'description x' } },
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gcl-rwf-'));
    store = await SessionStore.open(dir);
    cps = new CheckpointStore(store.db);
    faults = new FaultStore(store.db);
    for (const id of ['S1', 'S2']) {
      store.create({ id, copilot_mode: 'troubleshooting_injection', agent_mode: 'flat' });
      store.saver.log.append(id, 0, [new HumanMessage('break the lab')]);
    }
  });
  afterAll(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("marks restored only that session's open faults the rewind undid", () => {
    cps.saveDevice({ session_id: 'S1', request_no: 1, call_id: 'a', device: 'R1', config: 'hostname R1' });
    const saved = Date.parse(cps.devicesAt('S1', 1)[0]!.created_at);
    const later = new Date(saved + 60_000);
    const mine = faults.record({ ...base, session_id: 'S1', target: 'R1' }, later);
    const fixed = faults.record({ ...base, session_id: 'S1', target: 'R1', category: 'ospf' }, later);
    // its repair check ran after it was applied (a check that started before that fixes nothing)
    faults.recordCheck(fixed.id, { status: 'pass', evidence: 'ok' }, new Date(later.getTime() + 1000));
    const other = faults.record({ ...base, session_id: 'S2', target: 'R1' }, later);
    const got = markFaultsUndone(cps, { sessionId: 'S1', to: 1 }, outcome({ R1: 'restored' }));
    expect(got).toEqual({ restored: [mine.id], reopened: [] });
    expect(faults.get(mine.id)!.state).toBe('restored_unfixed');
    expect(faults.get(fixed.id)!.state).toBe('fixed');
    expect(faults.get(other.id)!.state).toBe('open');
    // a second run finds nothing open to undo, and brings back nothing restored after its checkpoint's faults
    expect(markFaultsUndone(cps, { sessionId: 'S1', to: 1 }, outcome({ R1: 'restored' }))).toEqual({ restored: [], reopened: [] });
  });

  it('opens again a restored fault the rewind put back on its device', () => {
    const applied = faults.record({ ...base, session_id: 'S1', target: 'R2' }, new Date(Date.now() - 60_000));
    faults.markRestored(applied.id, new Date(Date.now() + 60_000));
    // the checkpoint rewound to was taken between the two: it holds the fault
    cps.saveDevice({ session_id: 'S1', request_no: 2, call_id: 'rewind', device: 'R2', config: 'interface eth0\n shutdown' });
    const got = markFaultsUndone(cps, { sessionId: 'S1', to: 2, devices: ['R2'] }, outcome({ R2: 'restored' }));
    expect(got).toEqual({ restored: [], reopened: [applied.id] });
    expect(faults.get(applied.id)!.state).toBe('open');
  });
});

describe('the rewind report names the faults it restored', () => {
  const report: RewindReport = {
    session_id: 'abcdef0123',
    to: 2,
    request_no: 3,
    devices: [{ name: 'R3', status: 'restored', request_no: 2, commands: [], display: [], remaining: [], diff: '' }],
    topology: { delete_links: [], delete_nodes: [], rename: [], power: [], filters: [], status: 'unchanged', errors: [] },
    faults_restored: [4, 5],
  };
  it('in the text and the TUI summary', () => {
    expect(reportText(report, 'rewind')).toContain('\nfaults restored in the ledger: #4, #5\n');
    expect(rewindSummary(report).text).toContain('\n  faults restored in the ledger: #4, #5');
    expect(reportText({ ...report, faults_restored: [] }, 'rewind')).not.toContain('faults restored');
  });
});

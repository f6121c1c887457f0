/**
 * The fault ledger's rules, in process on a real sessions.db file: the (project, target,
 * category) slot reserved in sessions.db before anything is sent (held by a live call of
 * this or another process, taken over from a dead one), the open fault read with the
 * reservation and checked again before refusing, a repair check that ran before a fault's
 * application ended fixing nothing, the restore claim, restored_unfixed in the score.
 * A link fault's repair check reads only the topology, so no device is needed; the
 * topology is handed in, its link's filters changed between calls.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../../src/sessions/store.js';
import { FaultStore, type NewFault } from '../../src/faults/store.js';
import { admitFault, faultNote, ledgerOf, recordFault } from '../../src/tools/fault-ledger.js';
import { scoreOf, pointsOf, runRepairChecks } from '../../src/faults/check.js';
import { slotKey, restoreKey, STALE_CLAIM_MS } from '../../src/faults/claims.js';
import type { FaultTarget } from '../../src/faults/spec.js';
import type { Topology } from '../../src/gns3/types.js';
import type { ToolContext } from '../../src/tools/types.js';
import { DevicePool } from '../../src/devices/pool.js';
import { ctxFor, settingsWith } from '../devices/helpers.js';
import { topologyNode } from '../helpers/topology.js';

const dir = mkdtempSync(join(tmpdir(), 'gc-ledger-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let sessions: SessionStore;
let store: FaultStore;
let n = 0;
beforeEach(async () => {
  sessions = await SessionStore.open(join(dir, String(++n)));
  store = new FaultStore(sessions.db);
});
afterEach(() => sessions.close());

const end = (node: string, port: string) => ({ node_id: node, node_name: node, adapter_number: 0, port_number: 0, port_name: port });
const topology = (filters: Record<string, unknown[]>): Topology => ({
  project_id: 'p1',
  project_name: 'lab',
  nodes: [topologyNode('R1'), topologyNode('R2')],
  links: [{ link_id: 'L1', link_type: 'ethernet', ends: [end('R1', 'e0'), end('R2', 'e0')], filters, suspend: false, capturing: false }],
});
const linkTarget: FaultTarget = {
  kind: 'link',
  label: 'R1:e0 <-> R2:e0',
  linkId: 'L1',
  ends: ['R1:e0', 'R2:e0'],
  filters: { packet_loss: [30] },
};

/** An inject-mode tool context whose project's only link carries `lab.filters`. */
function injectCtx(lab: { filters: Record<string, unknown[]> }, callId?: string): ToolContext {
  const base = ctxFor(settingsWith(), () => topology(lab.filters));
  return { ...base, mode: 'troubleshooting_injection', faults: { sessionId: 's1', store }, ...(callId ? { callId } : {}) };
}

const fault = (over: Partial<NewFault> = {}): NewFault => ({
  session_id: 's1',
  project_id: 'p1',
  project_name: 'lab',
  target_kind: 'link',
  target: 'R1:e0 <-> R2:e0',
  scenario: 'link_packet_loss_30',
  category: 'link',
  difficulty: 'medium',
  applied: { packet_loss: [30] },
  restore: { tool: 'manage_gns3_packet_filter', args: { link: 'L1', action: 'clear', filters: { packet_loss: [] } } },
  repair_check: { link: { a: 'R1:e0', b: 'R2:e0', clean: true } },
  ...over,
});

const claimRows = () => sessions.db.prepare('SELECT claim, holder, pid FROM fault_claims ORDER BY claim').all();
const deadPid = () => spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;

describe('the slot of a fault is reserved in sessions.db', () => {
  it('is held by a live call: a second reservation names the holder; released, it is free; case does not matter', () => {
    const first = store.reserveSlot('p1', 'R1', 'ospf', 'call-a');
    expect(first).toMatchObject({ claim: { key: slotKey('p1', 'R1', 'ospf') }, open: undefined });
    expect(store.reserveSlot('p1', 'r1', 'ospf', 'call-b')).toEqual({ holder: 'call-a', pid: process.pid, here: true });
    // another category, target or project is another slot
    for (const [p, t, c] of [
      ['p1', 'R1', 'bgp'],
      ['p1', 'R2', 'ospf'],
      ['p2', 'R1', 'ospf'],
    ] as const)
      expect(store.reserveSlot(p, t, c, 'x')).toHaveProperty('claim');
    if ('claim' in first) store.releaseClaim(first.claim);
    expect(store.reserveSlot('p1', 'R1', 'ospf', 'call-c')).toHaveProperty('claim');
  });

  it('reads the open fault of the slot with the reservation; record stores the fault and frees the slot in one step', () => {
    const slot = store.reserveSlot('p1', 'R1:e0 <-> R2:e0', 'link', 'call-a');
    if (!('claim' in slot)) throw new Error('not reserved');
    const f = store.record(fault(), new Date('2026-01-01T00:00:00Z'), slot.claim);
    expect(claimRows()).toEqual([]);
    expect(f).toMatchObject({ id: 1, state: 'open', injected_at: '2026-01-01T00:00:00.000Z', call_id: null });
    const again = store.reserveSlot('p1', 'r1:E0 <-> r2:e0', 'link', 'call-b');
    expect(again).toMatchObject({ open: { id: 1 } });
  });

  it("a dead process's claim is taken over; another host's only once it is older than a call can run", () => {
    const put = (pid: number, host: string, at: Date) =>
      sessions.db
        .prepare('INSERT OR REPLACE INTO fault_claims (claim, holder, pid, host, token, claimed_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(slotKey('p1', 'R1', 'ospf'), 'old', pid, host, 't', at.toISOString());
    put(Number(deadPid()), hostname(), new Date());
    expect(store.reserveSlot('p1', 'R1', 'ospf', 'new')).toHaveProperty('claim');

    // a live process on this host (the parent of this test) holds it
    put(process.ppid, hostname(), new Date(0));
    expect(store.reserveSlot('p1', 'R1', 'ospf', 'new')).toEqual({ holder: 'old', pid: process.ppid, here: false });

    const now = Date.now();
    put(12345, 'another-host', new Date(now - STALE_CLAIM_MS + 60_000));
    expect(store.reserveSlot('p1', 'R1', 'ospf', 'new')).toEqual({ holder: 'old', pid: 12345, here: false });
    put(12345, 'another-host', new Date(now - STALE_CLAIM_MS - 1_000));
    expect(store.reserveSlot('p1', 'R1', 'ospf', 'new')).toHaveProperty('claim');
  });
});

describe('admitFault', () => {
  const lab = { filters: {} as Record<string, unknown[]> };
  beforeEach(() => (lab.filters = {}));

  it('is the ledger only in inject mode; a call without a fault or with one that does not resolve is refused, nothing reserved', async () => {
    const ctx = injectCtx(lab);
    expect(ledgerOf(ctx)).toBe(ctx.faults);
    expect(ledgerOf({ ...ctx, mode: 'lab_automation_assistant' })).toBeUndefined();
    const missing = await admitFault(ctx, ctx.faults!, undefined, linkTarget);
    expect(!missing.ok && missing.outcome.code).toBe('invalid_arguments');
    expect(!missing.ok && missing.outcome.display).toMatch(
      /^inject mode: every change is a fault recorded in the fault ledger: pass fault \{scenario/,
    );
    const bad = await admitFault(ctx, ctx.faults!, { scenario: 'no_such_scenario' }, linkTarget);
    expect(!bad.ok && bad.outcome.code).toBe('invalid_arguments');
    expect(!bad.ok && bad.outcome.display).toMatch(/^fault refused, nothing was applied: .*no_such_scenario/);
    expect(claimRows()).toEqual([]);
  });

  it('reserves the slot until the fault is recorded; a second call meanwhile is refused naming the first', async () => {
    const ctx = injectCtx(lab, 'call-a');
    const a = await admitFault(ctx, ctx.faults!, { scenario: 'link_packet_loss_30' }, linkTarget);
    if (!a.ok) throw new Error(a.outcome.display);
    expect(a.admitted.fault).toMatchObject({ category: 'link', target: 'R1:e0 <-> R2:e0', difficulty: 'medium' });
    const b = await admitFault(injectCtx(lab, 'call-b'), a.admitted.ledger, { scenario: 'link_corruption' }, linkTarget);
    expect(!b.ok && b.outcome.display).toBe(
      'fault refused, nothing was applied: another call of this answer (call-a) is applying a link fault on R1:e0 <-> R2:e0; one open fault per category on a link',
    );
    lab.filters = { packet_loss: [30] };
    const f = recordFault(a.admitted, { packet_loss: [30] }, 'call-a');
    expect(f).toMatchObject({ id: 1, call_id: 'call-a', session_id: 's1', project_id: 'p1', project_name: 'lab', state: 'open' });
    expect(faultNote(f)).toEqual({
      id: 1,
      scenario: 'link_packet_loss_30',
      category: 'link',
      difficulty: 'medium',
      target: 'R1:e0 <-> R2:e0',
      repair_check: { link: { a: 'R1:e0', b: 'R2:e0', clean: true } },
    });
    expect(claimRows()).toEqual([]);
  });

  it('a holder in another process is named with its pid', async () => {
    sessions.db
      .prepare('INSERT INTO fault_claims (claim, holder, pid, host, token, claimed_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(slotKey('p1', 'R1:e0 <-> R2:e0', 'link'), 'call_x', process.ppid, hostname(), 't', new Date().toISOString());
    const ctx = injectCtx(lab, 'mine');
    const r = await admitFault(ctx, ctx.faults!, { scenario: 'link_packet_loss_30' }, linkTarget);
    expect(!r.ok && r.outcome.display).toBe(
      `fault refused, nothing was applied: another call (call_x, process ${process.ppid}) is applying a link fault on R1:e0 <-> R2:e0; one open fault per category on a link`,
    );
  });

  it('an open fault still present refuses the next one and frees the slot; one fixed since is recorded fixed and lets it in', async () => {
    const open = store.record(fault(), new Date(Date.now() - 60_000));
    lab.filters = { packet_loss: [30] };
    const ctx = injectCtx(lab, 'next');
    const refused = await admitFault(ctx, ctx.faults!, { scenario: 'link_corruption' }, linkTarget);
    expect(!refused.ok && refused.outcome.display).toBe(
      `fault refused, nothing was applied: fault #1 (link_packet_loss_30, category link, on R1:e0 <-> R2:e0, injected ${open.injected_at}) ` +
        'is still open (its repair check: R1:e0 <-> R2:e0 filters {"packet_loss":[30]}); one open fault per category on a link: choose another category or link',
    );
    expect(!refused.ok && JSON.parse(JSON.stringify(refused.outcome.data))).toMatchObject({
      open_fault: { id: 1, scenario: 'link_packet_loss_30', category: 'link', target: 'R1:e0 <-> R2:e0' },
    });
    expect(claimRows()).toEqual([]);
    expect(store.get(1)!.state).toBe('open');

    lab.filters = {}; // a student cleared the link
    const admitted = await admitFault(ctx, ctx.faults!, { scenario: 'link_corruption' }, linkTarget);
    expect(admitted.ok).toBe(true);
    expect(store.get(1)!.state).toBe('fixed');
    if (admitted.ok) admitted.admitted.release();
    expect(claimRows()).toEqual([]);
  });

  it('a failure while checking the open fault frees the slot', async () => {
    store.record(fault(), new Date(Date.now() - 60_000));
    const ctx: ToolContext = {
      ...injectCtx(lab, 'x'),
      project: async () => ({
        projectId: 'p1',
        projectName: 'lab',
        getTopology: () => Promise.reject(new Error('controller gone')),
        capture: () => Promise.reject(new Error('no')),
      }),
    };
    await expect(admitFault(ctx, ctx.faults!, { scenario: 'link_corruption' }, linkTarget)).rejects.toThrow('controller gone');
    expect(claimRows()).toEqual([]);
  });
});

describe('repair checks and the score', () => {
  const opts = (filters: Record<string, unknown[]>) => ({
    project: { projectName: 'lab', getTopology: async () => topology(filters) },
    settings: settingsWith(),
    pool: new DevicePool({ openTimeoutMs: 1000, commandTimeoutMs: 1000, confirmAllow: [] }),
  });

  it('a pass fixes a fault only when the check started after its application ended', () => {
    const f = store.record(fault(), new Date('2026-01-01T00:00:10Z'));
    const early = store.recordCheck(
      f.id,
      { status: 'pass', evidence: 'clean' },
      new Date('2026-01-01T00:00:11Z'),
      new Date('2026-01-01T00:00:09Z'),
    );
    expect(early).toMatchObject({ state: 'open', fixed_at: null });
    expect(store.checks(f.id)).toEqual([{ checked_at: '2026-01-01T00:00:11.000Z', status: 'pass', evidence: 'clean' }]);
    const fail = store.recordCheck(f.id, { status: 'fail', evidence: 'loss' }, new Date('2026-01-01T00:00:12Z'));
    expect(fail.state).toBe('open');
    const onTime = store.recordCheck(
      f.id,
      { status: 'pass', evidence: 'clean' },
      new Date('2026-01-01T00:00:13Z'),
      new Date('2026-01-01T00:00:10Z'),
    );
    expect(onTime).toMatchObject({ state: 'fixed', fixed_at: '2026-01-01T00:00:13.000Z' });
  });

  it('runRepairChecks records each run, the first pass as the fix, and a stored check that no longer validates as an error', async () => {
    const a = store.record(fault(), new Date(Date.now() - 1000));
    const b = store.record(fault({ target: 'R9', target_kind: 'device', category: 'ospf', repair_check: { bogus: {} } as never }));
    const [ra, rb] = await runRepairChecks(store, [a, b], opts({ packet_loss: [30] }));
    expect(ra).toMatchObject({ kind: 'link', status: 'fail', fixed_now: false, fault: { state: 'open' } });
    expect(rb).toMatchObject({ kind: undefined, status: 'error', fixed_now: false });
    expect(rb!.evidence).toMatch(/^repair check does not validate: /);
    const [again] = await runRepairChecks(store, [store.get(a.id)!], opts({}));
    expect(again).toMatchObject({ status: 'pass', fixed_now: true, fault: { state: 'fixed' } });
    const [later] = await runRepairChecks(store, [store.get(a.id)!], opts({}));
    expect(later).toMatchObject({ status: 'pass', fixed_now: false });
    expect(store.checks(a.id).map((c) => c.status)).toEqual(['fail', 'pass', 'pass']);
  });

  it('a fault restored before it was fixed stays in the score, not fixed; one fixed first stays fixed', () => {
    const hard = store.record(fault({ difficulty: 'hard' }));
    const easy = store.record(fault({ difficulty: 'easy', target: 'R1', category: 'ospf' }));
    const odd = store.record(fault({ difficulty: 'unheard-of', target: 'R2', category: 'bgp' }));
    expect(pointsOf(hard)).toBe(3);
    expect(pointsOf(odd)).toBe(1);
    store.recordCheck(hard.id, { status: 'pass', evidence: 'ok' });
    expect(store.markRestored(hard.id).state).toBe('fixed');
    expect(store.markRestored(easy.id)).toMatchObject({ state: 'restored_unfixed', fixed_at: null });
    // a restored fault cannot be fixed afterwards
    expect(store.recordCheck(easy.id, { status: 'pass', evidence: 'ok' }).state).toBe('restored_unfixed');
    expect(scoreOf(store.list())).toEqual({ score: 3, max_score: 5, open: 1, fixed: 1, restored: 1 });
    expect(store.list({ state: 'restored_unfixed' }).map((f) => f.id)).toEqual([easy.id]);
    expect(store.reopen(easy.id).state).toBe('open');
  });
});

describe('the restore claim', () => {
  it('open → restoring → restored: a second claim while it runs is busy, after it is restored already; a failed restore frees it', () => {
    const f = store.record(fault());
    const first = store.claimRestore(f.id, 'faults restore');
    if (!first || !('claim' in first)) throw new Error('not claimed');
    expect(first.fault.id).toBe(f.id);
    expect(first.claim.key).toBe(restoreKey(f.id));
    expect(store.claimRestore(f.id, 'faults restore')).toEqual({ busy: { holder: 'faults restore', pid: process.pid, here: true } });
    store.releaseClaim(first.claim); // the restore call failed: nothing changed
    const second = store.claimRestore(f.id, 'faults restore');
    if (!second || !('claim' in second)) throw new Error('not claimed');
    store.markRestored(f.id, new Date('2026-02-02T00:00:00Z'));
    expect(claimRows()).toEqual([]);
    expect(store.claimRestore(f.id, 'faults restore')).toEqual({
      restored: expect.objectContaining({ id: f.id, restored_at: '2026-02-02T00:00:00.000Z' }),
    });
    expect(store.claimRestore(999, 'faults restore')).toBeUndefined();
  });
});

/**
 * A link fault through the ledger on the fake GNS3 controller: `manage_gns3_packet_filter`
 * `set` in inject mode records it with the "link carries no filter" repair check, refuses a
 * second link fault while the first is open, and `faults restore`'s path (the dispatch with
 * the `cli` caller) clears what it set. Real SQLite, real HTTP; no devices needed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rig, runTool, toolCtx, type Rig } from '../gns3/helpers.js';
import { manageGns3PacketFilter } from '../../src/tools/gns3/packet-filter.js';
import { FaultStore } from '../../src/faults/store.js';
import { runRepairChecks } from '../../src/faults/check.js';
import { restoreFault } from '../../src/undo/fault-restore.js';
import { admitFault } from '../../src/tools/fault-ledger.js';
import { SessionStore } from '../../src/sessions/store.js';
import { DevicePool } from '../../src/devices/pool.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { allTools } from '../../src/tools/index.js';
import type { ToolContext } from '../../src/tools/types.js';

let r: Rig;
let sessions: SessionStore;
let store: FaultStore;
let ctx: ToolContext;
const dir = mkdtempSync(join(tmpdir(), 'gc-link-fault-'));

beforeAll(async () => {
  r = await rig('v3');
  r.fake.addProject({ name: 'lab' });
  r.fake.addNode({ name: 'R1', node_type: 'qemu', template_name: 'FRR', x: 0, y: 0 });
  r.fake.addNode({ name: 'R2', node_type: 'qemu', template_name: 'FRR', x: 200, y: 0 });
  r.fake.addLink({ a: 'R1:e0', b: 'R2:e0' });
  r.fake.addLink({ a: 'R1:e1', b: 'R2:e1' });
  r.fake.addLink({ a: 'R1:e2', b: 'R2:e2' });
  const project = await r.client.openProject('lab');
  sessions = await SessionStore.open(dir);
  store = new FaultStore(sessions.db);
  ctx = { ...toolCtx(r.settings, async () => project), mode: 'troubleshooting_injection', faults: { sessionId: 's-link', store } };
});

afterAll(async () => {
  sessions?.close();
  await r?.close();
  rmSync(dir, { recursive: true, force: true });
});

const checkOpts = async () => ({
  project: await ctx.project(),
  settings: r.settings,
  pool: new DevicePool({ openTimeoutMs: 1000, commandTimeoutMs: 1000, confirmAllow: [] }),
});

describe('a link fault in the ledger', () => {
  it('needs a fault in inject mode; records it with the link-clean repair check; reading needs none', async () => {
    const bare = await runTool(manageGns3PacketFilter, { link: 'R1:e0 R2:e0', action: 'set', filters: { packet_loss: [30] } }, ctx);
    expect(bare.status).toBe('error');
    expect(bare.error).toMatch(/^inject mode: every change is a fault recorded in the fault ledger: pass fault/);
    expect((await runTool(manageGns3PacketFilter, { link: 'R1:e0 R2:e0', action: 'get' }, ctx)).filters).toEqual({});

    const set = await runTool(
      manageGns3PacketFilter,
      { link: 'R1:e0 R2:e0', action: 'set', filters: { packet_loss: [30] }, fault: { scenario: 'link_packet_loss_30' } },
      ctx,
    );
    expect(set).toMatchObject({
      status: 'success',
      filters: { packet_loss: [30] },
      fault: { id: 1, category: 'link', target: 'R1:e0 <-> R2:e0' },
    });
    // a link between routers is verified, reported only (the fault is the point); these routers have no console: error, never pass
    expect(set.verification).toMatchObject({ status: 'error', report_only: true, regressions: [] });
    expect((set.verification as { reason: string }).reason).toMatch(/R1|R2/);
    const f = store.get(1)!;
    expect(f).toMatchObject({
      session_id: 's-link',
      project_name: 'lab',
      target_kind: 'link',
      scenario: 'link_packet_loss_30',
      difficulty: 'medium',
      applied: { packet_loss: [30] },
      restore: { tool: 'manage_gns3_packet_filter', args: { action: 'clear', filters: { packet_loss: [] } } },
      repair_check: { link: { a: 'R1:e0', b: 'R2:e0', clean: true } },
      state: 'open',
    });
  });

  it('refuses a second link fault on that link while the first is present, naming it', async () => {
    const second = await runTool(
      manageGns3PacketFilter,
      { link: 'R1:e0 R2:e0', action: 'set', filters: { delay: [500, 50] }, fault: { scenario: 'link_high_delay' } },
      ctx,
    );
    expect(second.status).toBe('error');
    expect(second.error).toMatch(
      /^fault refused, nothing was applied: fault #1 \(link_packet_loss_30, category link, on R1:e0 <-> R2:e0, injected .*\) is still open/,
    );
    expect(second.open_fault).toMatchObject({ id: 1, category: 'link' });
    expect((await runTool(manageGns3PacketFilter, { link: 'R1:e0 R2:e0', action: 'get' }, ctx)).filters).toEqual({ packet_loss: [30] });
    const [now] = await runRepairChecks(store, [store.get(1)!], await checkOpts());
    expect(now).toMatchObject({ kind: 'link', status: 'fail', fixed_now: false });
  });

  it('the restore goes through the dispatch: refused without approval, then clears the filter and marks the fault restored', async () => {
    const plain = { ...ctx, mode: undefined, faults: undefined };
    const deps = { store, registry: new ToolRegistry(allTools()), ctx: plain };
    const opts = { mode: 'troubleshooting_injection' as const, policy: 'ask' as const, approvalTools: [] };
    const refused = await restoreFault(store.get(1)!, deps, opts);
    expect(refused).toMatchObject({ status: 'blocked', needsApproval: true });
    expect(refused.status === 'blocked' && refused.reason).toMatch(/rerun with --yes/);
    expect(store.get(1)!.state).toBe('open');

    const done = await restoreFault(store.get(1)!, deps, { ...opts, approver: () => Promise.resolve({ kind: 'allow_once' as const }) });
    expect(done.status).toBe('restored');
    expect(store.get(1)!.state).toBe('restored_unfixed');
    expect((await runTool(manageGns3PacketFilter, { link: 'R1:e0 R2:e0', action: 'get' }, ctx)).filters).toEqual({});
    // a restored fault no longer blocks its category
    const again = await runTool(
      manageGns3PacketFilter,
      { link: 'R1:e0 R2:e0', action: 'set', filters: { delay: [500, 50] }, fault: { scenario: 'link_high_delay' } },
      ctx,
    );
    expect(again).toMatchObject({ status: 'success', fault: { id: 2 } });
  });

  it('two calls of one answer with faults of one category on one link: one is applied, the other refused', async () => {
    // which call wins is a race; the ledger-level test below pins the refusal of the one in flight
    const call = (callId: string, filters: Record<string, unknown>, scenario: string) =>
      runTool(manageGns3PacketFilter, { link: 'R1:e1 R2:e1', action: 'set', filters, fault: { scenario } }, { ...ctx, callId });
    const both = await Promise.all([
      call('a', { packet_loss: [30] }, 'link_packet_loss_30'),
      call('b', { corrupt: [20] }, 'link_corruption'),
    ]);
    const won = both.filter((x) => x.status === 'success');
    const lost = both.filter((x) => x.status === 'error');
    expect([won.length, lost.length]).toEqual([1, 1]);
    expect(lost[0].error).toMatch(
      /^fault refused, nothing was applied: (another call of this answer \([ab]\) is applying|fault #3 .* is still open)/,
    );
    expect((await runTool(manageGns3PacketFilter, { link: 'R1:e1 R2:e1', action: 'get' }, ctx)).filters).toEqual(won[0].filters);
  });

  it('a fault admitted and not yet recorded holds its category on its target until it is recorded or released', async () => {
    const target = {
      kind: 'link' as const,
      label: 'R9:e0 <-> R8:e0',
      linkId: 'L9',
      ends: ['R9:e0', 'R8:e0'] as [string, string],
      filters: { delay: [500] },
    };
    const ledger = ctx.faults!;
    const [first, second] = await Promise.all([
      admitFault({ ...ctx, callId: 'one' }, ledger, { scenario: 'link_high_delay' }, target),
      admitFault({ ...ctx, callId: 'two' }, ledger, { scenario: 'link_jitter' }, target),
    ]);
    expect(first.ok).toBe(true);
    expect(!second.ok && second.outcome.display).toBe(
      'fault refused, nothing was applied: another call of this answer (one) is applying a link fault on R9:e0 <-> R8:e0; one open fault per category on a link',
    );
    if (first.ok) first.admitted.release();
    const third = await admitFault({ ...ctx, callId: 'three' }, ledger, { scenario: 'link_jitter' }, target);
    expect(third.ok).toBe(true);
    if (third.ok) third.admitted.release();
  });

  it('a fault another process just applied is not judged fixed by a read from before it (the project caches reads for a second)', async () => {
    const project = await ctx.project();
    // this process read the link (clean) a moment ago ...
    const before = await runTool(manageGns3PacketFilter, { link: 'R1:e2 R2:e2', action: 'get' }, ctx);
    expect(before.filters).toEqual({});
    expect((await project.getTopology()).links.find((l) => l.link_id === before.link_id)!.filters).toEqual({});
    // ... then another process applied a link fault on it and recorded it
    r.fake.project('lab').links.get(before.link_id)!.filters = { packet_loss: [30] };
    const other = store.record({
      session_id: 's-other-process',
      project_id: project.projectId,
      project_name: 'lab',
      target_kind: 'link',
      target: 'R1:e2 <-> R2:e2',
      scenario: 'link_packet_loss_30',
      category: 'link',
      difficulty: 'medium',
      applied: { packet_loss: [30] },
      restore: { tool: 'manage_gns3_packet_filter', args: { link: before.link_id, action: 'clear', filters: { packet_loss: [] } } },
      repair_check: { link: { a: 'R1:e2', b: 'R2:e2', clean: true } },
    });
    // a fault of the same category from this process: the open one's repair check reads the link as it is now
    const second = await runTool(
      manageGns3PacketFilter,
      { link: 'R1:e2 R2:e2', action: 'set', filters: { delay: [500] }, fault: { scenario: 'link_high_delay' } },
      ctx,
    );
    expect(second.status).toBe('error');
    expect(second.error).toContain(`fault #${other.id} (link_packet_loss_30, category link, on R1:e2 <-> R2:e2`);
    expect(second.error).toContain('is still open (its repair check: R1:e2 <-> R2:e2 filters {"packet_loss":[30]})');
    expect(store.get(other.id)).toMatchObject({ state: 'open', fixed_at: null });
    expect(r.fake.project('lab').links.get(before.link_id)!.filters).toEqual({ packet_loss: [30] });
  });
});

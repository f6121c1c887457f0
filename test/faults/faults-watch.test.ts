/**
 * `faults check --watch [S]`: the built CLI against the fake GNS3 controller and a real
 * sessions.db, on link faults (their repair check, "the link carries no filter", reads only
 * the controller). The watch records a fix within S seconds of when it happened — not when
 * someone next ran `faults check` — prints it, and ends with the score once no fault is
 * open; Ctrl-C stops it with 130.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, isolatedEnv } from '../helpers/cli-run.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { SessionStore } from '../../src/sessions/store.js';
import { FaultStore, type Fault } from '../../src/faults/store.js';

let gns3: FakeGns3;
let projectId: string;
const home = mkdtempSync(join(tmpdir(), 'gc-faults-watch-'));
const dataDir = join(home, 'ledger');
const env = isolatedEnv({ GNS3_COPILOT_KEYCHAIN: 'off', GNS3_COPILOT_DATA_DIR: dataDir, NO_COLOR: '1' });

beforeAll(async () => {
  gns3 = await startFakeGns3({ api: 'v2' });
  projectId = gns3.addProject({ name: 'watch-lab' });
  gns3.addNode({ name: 'R1', node_type: 'qemu', template_name: 'FRR', x: 0, y: 0, project: 'watch-lab' });
  gns3.addNode({ name: 'R2', node_type: 'qemu', template_name: 'FRR', x: 200, y: 0, project: 'watch-lab' });
});
afterAll(async () => {
  await gns3?.close();
  rmSync(home, { recursive: true, force: true });
});

async function withLedger<T>(body: (store: FaultStore) => T): Promise<T> {
  const sessions = await SessionStore.open(dataDir);
  try {
    return body(new FaultStore(sessions.db));
  } finally {
    sessions.close();
  }
}

/** A link with 30% loss on it and its fault in the ledger, applied a minute ago. */
async function linkFault(port: string): Promise<{ linkId: string; fault: Fault }> {
  const link = gns3.addLink({ a: `R1:${port}`, b: `R2:${port}`, filters: { packet_loss: [30] }, project: 'watch-lab' });
  const fault = await withLedger((store) =>
    store.record(
      {
        session_id: 's-watch',
        project_id: projectId,
        project_name: 'watch-lab',
        target_kind: 'link',
        target: `R1:${port} <-> R2:${port}`,
        scenario: 'link_packet_loss_30',
        category: 'link',
        difficulty: 'medium',
        applied: { packet_loss: [30] },
        restore: { tool: 'manage_gns3_packet_filter', args: { link: link.link_id, action: 'clear', filters: { packet_loss: [] } } },
        repair_check: { link: { a: `R1:${port}`, b: `R2:${port}`, clean: true } },
      },
      new Date(Date.now() - 60_000),
    ),
  );
  return { linkId: link.link_id, fault };
}

/** `faults check --watch 1` as a process; resolves `printed(text)` once stdout has it. */
function watch() {
  const child = spawn(process.execPath, [BIN, 'faults', 'check', '--watch', '1', '-s', gns3.url, '--project', 'watch-lab'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    for (const w of waiters.filter((x) => stdout.includes(x.text))) w.resolve();
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    child,
    exited,
    out: () => stdout,
    err: () => stderr,
    printed: (text: string) => new Promise<void>((resolve) => (stdout.includes(text) ? resolve() : waiters.push({ text, resolve }))),
  };
}

describe('faults check --watch', () => {
  it('records a fix within the interval of when it happened, prints it, and ends with the score', async () => {
    const { linkId, fault } = await linkFault('e1');
    const w = watch();
    await w.printed('still present');
    expect(w.out()).toContain(
      `✗ #${fault.id} R1:e1 <-> R2:e1 link_packet_loss_30  still present (fail)  R1:e1 <-> R2:e1 filters {"packet_loss":[30]}`,
    );

    // a student clears the link while the watch runs
    const fixedAt = Date.now();
    gns3.project('watch-lab').links.get(linkId)!.filters = {};
    expect(await w.exited, w.err()).toBe(0);
    expect(w.out()).toMatch(
      new RegExp(
        `^\\d\\d:\\d\\d:\\d\\d ✓ #${fault.id} R1:e1 <-> R2:e1 link_packet_loss_30 fixed \\S+ \\S+  R1:e1 <-> R2:e1 \\(no filters\\)$`,
        'm',
      ),
    );
    expect(w.out().trimEnd().split('\n').at(-1)).toBe('no fault is open · 0 open, 1 fixed, 0 restored unfixed · score 2/2');

    const stored = await withLedger((store) => store.get(fault.id)!);
    expect(stored.state).toBe('fixed');
    // the watch polls every second: the fix time is the first run after the clear, not a later `faults check`
    const recorded = Date.parse(stored.fixed_at!);
    expect(recorded).toBeGreaterThanOrEqual(fixedAt);
    expect(recorded - fixedAt).toBeLessThan(15_000);
  }, 60_000);

  it('Ctrl-C stops it with 130; the fault stays open', async () => {
    const { fault } = await linkFault('e2');
    const w = watch();
    await w.printed('still present');
    w.child.kill('SIGINT');
    expect(await w.exited, w.err()).toBe(130);
    expect((await withLedger((store) => store.get(fault.id)!)).state).toBe('open');
  }, 60_000);
});

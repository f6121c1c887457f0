/**
 * /rewind in the TUI, for real: the App (ink-testing-library) with the real rewind
 * behind its services — a real sessions.db with the session's topology checkpoints
 * and the fake v2 GNS3 controller the restore is sent to. Only the agent session is
 * scripted (the rewind does not talk to the model). The picker lists the session's
 * requests, the plan is printed, every call is asked for in the approval box, and the
 * outcome says what is back.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HumanMessage } from '@langchain/core/messages';
import { cleanup } from 'ink-testing-library';
import { mount, KEY } from './harness.js';
import { testSettings } from './helpers/fake-services.js';
import { until } from './helpers/scripted-session.js';
import { stripAnsi } from '../../src/ui/style.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { SessionStore } from '../../src/sessions/store.js';
import { CheckpointStore } from '../../src/checkpoints/store.js';
import { rewindFromTui, sessionRequests, type TuiRewindOptions } from '../../src/undo/tui-rewind.js';
import type { Settings } from '../../src/config/schema.js';

process.env.GNS3_COPILOT_KEYCHAIN = 'off';
const dataDir = mkdtempSync(join(tmpdir(), 'gc-tui-rewind-'));
let gns3: FakeGns3;
let store: SessionStore;

beforeAll(async () => {
  gns3 = await startFakeGns3({ api: 'v2' });
  const projectId = gns3.addProject({ name: 'topo' });
  for (const name of ['R1', 'R2']) gns3.addNode({ name, node_type: 'qemu', status: 'stopped', ports: 4 });
  store = await SessionStore.open(dataDir);
  // sess-1 is the id the TUI's (scripted) session gets: two requests, each changed the topology
  store.create({
    id: 'sess-1',
    copilot_mode: 'lab_automation_assistant',
    agent_mode: 'flat',
    project_id: projectId,
    project_name: 'topo',
  });
  store.saver.log.append('sess-1', 0, [new HumanMessage('rename R1 to Core1')]);
  store.saver.log.append('sess-1', 1, [new HumanMessage('add a router R3 next to R2')]);
  const cp = new CheckpointStore(store.db);
  const r1 = gns3.node('R1');
  cp.saveTopology({
    session_id: 'sess-1',
    request_no: 1,
    call_id: 'ren',
    before: { nodes: [{ node_id: r1.node_id, name: 'R1', status: 'stopped' }], links: [] },
  });
  r1.name = 'Core1';
  const r3 = gns3.addNode({ name: 'R3', node_type: 'qemu', status: 'stopped', ports: 4 });
  cp.saveTopology({
    session_id: 'sess-1',
    request_no: 2,
    call_id: 'add',
    before: { nodes: [], links: [] },
    created: { nodes: [r3.node_id], links: [] },
  });
});

afterEach(() => cleanup());

afterAll(async () => {
  store?.close();
  await gns3?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const settings = (): Settings => testSettings({ project: 'topo', server: gns3.url, data_dir: dataDir, mode: 'lab' });

/** The App with the real rewind behind /rewind. */
function mountWithLab() {
  const t = mount({ settings: settings(), rows: 60, columns: 120 });
  t.services.sessionRequests = async (_s, id) => sessionRequests(store, id);
  t.services.rewind = (s: Settings, o: TuiRewindOptions) => rewindFromTui(s, store, o);
  /** waits until `text` has been on the screen (notices are printed once, then scroll away from the last frame) */
  const waitSeen = (text: string, timeoutMs = 15_000) =>
    until(() => t.frames.some((f) => stripAnsi(f).includes(text)), timeoutMs, `the screen to have shown ${text}\n${t.frame()}`);
  return { ...t, waitSeen };
}

describe('/rewind', () => {
  it('picks a request, prints the plan, asks in the approval box before anything is sent and reports what is back', async () => {
    const t = mountWithLab();
    await t.ready();
    await t.type('/rewind');
    await t.waitFor('Rewind the lab to just before request…');
    // newest first, like /sessions
    const f = t.frame();
    expect(f.indexOf('2. add a router R3 next to R2')).toBeGreaterThan(-1);
    expect(f.indexOf('2. add a router R3')).toBeLessThan(f.indexOf('1. rename R1 to Core1'));
    await t.press(KEY.down, KEY.enter);

    // the plan, then the restore waits for approval before anything is sent
    await t.waitFor('Approve rewind: restore the topology?', 15_000);
    await t.waitSeen('rewind to just before request 1');
    await t.waitSeen('delete node R3 (created by the session)');
    await t.waitSeen('rename Core1 → R1');
    expect(gns3.project('topo').nodes.size).toBe(3);
    await t.press('y');
    // one answer for the whole topology: the rename is not asked about again
    await t.waitSeen('✓ rewind to just before request 1 (request 3): restored');
    await t.waitSeen('topology: restored');
    // nothing is left running on screen: the input line is back
    await t.waitFor('Ask about your lab');
    expect(t.frame()).not.toContain('rewind: restore the topology');
    expect([...gns3.project('topo').nodes.values()].map((n) => n.name).sort()).toEqual(['R1', 'R2']);
    // the rewind is a request of the session: the next /rewind lists it
    expect(sessionRequests(store, 'sess-1').map((r) => [r.no, r.kind])).toEqual([
      [1, 'prompt'],
      [2, 'prompt'],
      [3, 'rewind'],
    ]);
    await t.type('/rewind');
    await t.waitFor('3. rewind to before request 1');
    await t.press(KEY.esc);
  }, 60_000);

  it('Esc leaves the picker without rewinding; a denied restore sends nothing and says so', async () => {
    const cp = new CheckpointStore(store.db);
    const no = cp.currentRequestNo('sess-1') + 1;
    store.saver.log.append('sess-1', 2, [new HumanMessage('add R4')]);
    const r4 = gns3.addNode({ name: 'R4', node_type: 'qemu', status: 'stopped', ports: 4 });
    cp.saveTopology({
      session_id: 'sess-1',
      request_no: no,
      call_id: 'add4',
      before: { nodes: [], links: [] },
      created: { nodes: [r4.node_id], links: [] },
    });
    const t = mountWithLab();
    await t.ready();
    await t.type('/rewind');
    await t.waitFor(`${no}. add R4`);
    await t.press(KEY.esc);
    await t.waitFor('Ask about your lab');
    expect(gns3.project('topo').nodes.has(r4.node_id)).toBe(true);

    await t.type('/rewind');
    await t.waitFor(`${no}. add R4`);
    await t.press(KEY.enter);
    await t.waitFor('Approve rewind: restore the topology?', 15_000);
    await t.press('n');
    await t.waitSeen(`✗ rewind to just before request ${no} not applied: the user denied`);
    expect(gns3.project('topo').nodes.has(r4.node_id)).toBe(true);
    // a refused rewind is no request of the session
    expect(cp.currentRequestNo('sess-1')).toBe(no);
  }, 60_000);
});

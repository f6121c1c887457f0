/**
 * Topology rewind against the fake v3 controller, through the built CLI: the
 * nodes and links a session created are deleted, a renamed node gets its name
 * back (a lab-mode session), a link filter is restored (an inject-mode session).
 * The topology checkpoints are recorded as the dispatch's hook records them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HumanMessage } from '@langchain/core/messages';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { cliEnv, runCli } from '../e2e/oneshot-cli.js';
import { SessionStore } from '../../src/sessions/store.js';
import { CheckpointStore } from '../../src/checkpoints/store.js';
import type { CopilotMode } from '../../src/core/modes.js';

let gns3: FakeGns3;
let projectId: string;
const env = cliEnv({ GNS3_USER: 'admin', GNS3_PASSWORD: 'admin-pass', GNS3_COPILOT_DATA_DIR: '' });
env.env.GNS3_COPILOT_DATA_DIR = `${env.home}/data`;

const cli = (...args: string[]) => runCli([...args, '--server', gns3.url, '--project', 'topo'], env.env, { timeoutMs: 60_000 });

/** A session whose request 1 recorded `before`/`created`, as the checkpoint hook does before a topology change. */
async function session(id: string, mode: CopilotMode, record: (cp: CheckpointStore) => void): Promise<void> {
  const store = await SessionStore.open(`${env.home}/data`);
  store.create({ id, copilot_mode: mode, agent_mode: 'flat', project_id: projectId, project_name: 'topo' });
  store.saver.log.append(id, 0, [new HumanMessage('change the topology')]);
  record(new CheckpointStore(store.db));
  store.close();
}

beforeAll(async () => {
  gns3 = await startFakeGns3({ api: 'v3', users: { admin: 'admin-pass' } });
  projectId = gns3.addProject({ name: 'topo' });
  for (const name of ['R1', 'R2']) gns3.addNode({ name, node_type: 'qemu', status: 'stopped', ports: 4 });
});

afterAll(async () => {
  await gns3?.close();
  env.cleanup();
});

describe('topology rewind (fake controller)', () => {
  it('deletes the nodes and links the session created and gives a renamed node its name back', async () => {
    const r1 = gns3.node('R1');
    await session('topo-lab', 'lab_automation_assistant', (cp) =>
      cp.saveTopology({
        session_id: 'topo-lab',
        request_no: 1,
        call_id: 'ren',
        before: { nodes: [{ node_id: r1.node_id, name: 'R1', status: 'stopped' }], links: [] },
      }),
    );
    r1.name = 'Core1';
    const r3 = gns3.addNode({ name: 'R3', node_type: 'qemu', status: 'stopped', ports: 4 });
    const link = gns3.addLink({ a: 'R2:e0', b: 'R3:e0' });
    const store = await SessionStore.open(`${env.home}/data`);
    new CheckpointStore(store.db).saveTopology({
      session_id: 'topo-lab',
      request_no: 1,
      call_id: 'create',
      before: { nodes: [], links: [] },
      created: { nodes: [r3.node_id], links: [link.link_id] },
    });
    store.close();

    const diff = await cli('diff', 'topo-lab', '--json');
    expect(diff.code, diff.stderr).toBe(0);
    expect(JSON.parse(diff.stdout).topology).toMatchObject({ rename: [{ from: 'Core1', to: 'R1' }], delete_nodes: [{ name: 'R3' }] });

    const no = await cli('rewind', 'topo-lab');
    expect(no.code).toBe(6);
    expect(gns3.project('topo').nodes.has(r3.node_id)).toBe(true);

    const r = await cli('rewind', 'topo-lab', '--yes', '--json');
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(JSON.parse(r.stdout).topology.status).toBe('restored');
    const p = gns3.project('topo');
    expect([...p.nodes.values()].map((n) => n.name).sort()).toEqual(['R1', 'R2']);
    expect(p.links.has(link.link_id)).toBe(false);
  }, 90_000);

  it('restores a link filter an inject-mode session set', async () => {
    const link = gns3.addLink({ a: 'R1:e1', b: 'R2:e1' });
    await session('topo-inject', 'troubleshooting_injection', (cp) =>
      cp.saveTopology({
        session_id: 'topo-inject',
        request_no: 1,
        call_id: 'f',
        before: { nodes: [], links: [{ link_id: link.link_id, filters: {} }] },
      }),
    );
    link.filters = { packet_loss: [30] };
    const r = await cli('rewind', 'topo-inject', '--yes', '--json');
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(JSON.parse(r.stdout).topology.filters).toEqual([expect.objectContaining({ from: { packet_loss: [30] }, to: {} })]);
    expect(gns3.project('topo').links.get(link.link_id)!.filters).toEqual({});
  }, 90_000);

  it('exits 8 naming the topology when it cannot be put back (a v3 server will not rename a running node)', async () => {
    const r4 = gns3.addNode({ name: 'R4', node_type: 'qemu', status: 'started', ports: 4 });
    await session('topo-partial', 'lab_automation_assistant', (cp) =>
      cp.saveTopology({
        session_id: 'topo-partial',
        request_no: 1,
        call_id: 'ren',
        before: { nodes: [{ node_id: r4.node_id, name: 'R4', status: 'started' }], links: [] },
      }),
    );
    r4.name = 'Edge4';
    const r = await cli('rewind', 'topo-partial', '--yes', '--json');
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(8);
    expect(JSON.parse(r.stdout).topology.status).toBe('partial');
    expect(r.stderr).toMatch(/did not restore everything: topology/);
    expect(gns3.node('Edge4').node_id).toBe(r4.node_id);
  }, 90_000);
});

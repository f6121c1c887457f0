/**
 * The named lab checkpoint store on a real sessions.db: per controller and project, one blob
 * per distinct configuration shared with the session checkpoints, names checked, a name taken
 * refused unless replaced, restores recorded so a killed one is known; and the topology plan
 * back to a saved lab.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionStore } from '../../src/sessions/store.js';
import { CheckpointStore } from '../../src/checkpoints/store.js';
import { NamedCheckpointStore, checkName, controllerKey, type SaveInput } from '../../src/checkpoints/named-store.js';
import { planLabTopology } from '../../src/checkpoints/named-plan.js';
import { SCHEMA_VERSION } from '../../src/sessions/migrations.js';
import type { SavedTopology } from '../../src/checkpoints/named-types.js';

let dir: string;
let store: SessionStore;
let named: NamedCheckpointStore;
const A = { controller: controllerKey('http://user:pw@10.0.0.5:3080/'), project_id: 'p-a' };
const B = { controller: controllerKey('http://10.0.0.5:3080'), project_id: 'p-b' };
const big = Array.from({ length: 1500 }, (_, i) => `interface eth${i}\n ip address 10.${i >> 8}.${i & 255}.1/24\nexit`).join('\n');
const topology: SavedTopology = {
  nodes: [
    { node_id: 'n1', name: 'R1', node_type: 'qemu', status: 'started', template_name: 'FRR', console_type: 'telnet', x: 0, y: 0 },
    { node_id: 'n2', name: 'R2', node_type: 'qemu', status: 'started', template_name: 'FRR', console_type: 'telnet', x: 0, y: 0 },
  ],
  links: [
    {
      link_id: 'l1',
      ends: [
        { node_id: 'n1', node_name: 'R1', adapter_number: 0, port_number: 0, port_name: 'e0' },
        { node_id: 'n2', node_name: 'R2', adapter_number: 0, port_number: 0, port_name: 'e0' },
      ],
      filters: {},
      suspend: false,
    },
  ],
};
const input = (key: typeof A, name: string, r2: string | undefined): SaveInput => ({
  ...key,
  project_name: key.project_id,
  name,
  topology,
  devices: [
    { device: 'R1', node_id: 'n1', platform: 'frr', config: big },
    { device: 'R2', node_id: 'n2', platform: 'frr', ...(r2 !== undefined ? { config: r2 } : { error: 'connection refused' }) },
    { device: 'srv', node_id: 'n3', platform: 'linux', error: 'no capture command for linux devices' },
  ],
});
const blobs = () => store.db.prepare('SELECT COUNT(*) FROM checkpoint_blobs').pluck().get() as number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gcl-named-'));
  store = await SessionStore.open(dir);
  named = new NamedCheckpointStore(store.db);
});

afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('NamedCheckpointStore', () => {
  it('lives in the sessions schema after the seen topology (migration 7)', () => {
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(7);
    expect(store.db.prepare("SELECT name FROM sqlite_master WHERE name = 'lab_checkpoints'").pluck().get()).toBe('lab_checkpoints');
  });

  it('keys by the controller without credentials or a trailing slash, and the project', () => {
    expect(A.controller).toBe('http://10.0.0.5:3080');
    expect(B.controller).toBe(A.controller);
  });

  it('saves each configuration once (shared across checkpoints), keeps why a device was not saved', () => {
    named.save(input(A, 'stage1', 'hostname R2'));
    named.save(input(A, 'stage2', undefined));
    named.save(input(B, 'stage1', 'hostname R2'));
    expect(blobs()).toBe(2);
    const s2 = named.get(A, 'stage2')!;
    expect(s2.devices.map((d) => [d.device, d.config === big, d.error])).toEqual([
      ['R1', true, null],
      ['R2', false, 'connection refused'],
      ['srv', false, 'no capture command for linux devices'],
    ]);
    expect(s2.topology).toEqual(topology);
    expect(named.list(A).map((c) => [c.name, c.saved, c.not_saved, c.nodes, c.links])).toEqual([
      ['stage1', 2, 1, 2, 1],
      ['stage2', 1, 2, 2, 1],
    ]);
    // a name differing only in case finds it; the other project has its own
    expect(named.get(A, 'STAGE1')!.name).toBe('stage1');
    expect(named.get(B, 'stage2')).toBeUndefined();
  });

  it('refuses a name taken unless replaced, and a name that cannot be typed on a command line', () => {
    expect(() => named.save(input(A, 'stage1', 'x'))).toThrow(/checkpoint "stage1" exists for project p-a .*--replace/);
    expect(() => named.assertFree(A, 'Stage1', 'p-a')).toThrow(/exists/);
    expect(named.save(input(A, 'stage1', 'hostname R2-new'), { replace: true }).replaced).toBe(true);
    expect(named.get(A, 'stage1')!.devices[1]!.config).toBe('hostname R2-new');
    for (const bad of ['', '-x', 'a b', 'x'.repeat(65), '../etc']) expect(() => checkName(bad)).toThrow(/checkpoint name/);
  });

  it('deleting drops only the configurations no checkpoint of either kind keeps', () => {
    store.create({ id: 'S', copilot_mode: 'lab_automation_assistant', agent_mode: 'flat' });
    new CheckpointStore(store.db).saveDevice({ session_id: 'S', request_no: 1, call_id: 'c', device: 'R2', config: 'hostname R2-new' });
    const before = blobs();
    expect(named.delete(A, 'stage1')).toBe(true);
    expect(named.delete(A, 'stage1')).toBe(false);
    // stage1's R2 text is a session checkpoint's too: kept
    expect(blobs()).toBe(before);
    expect(named.delete(A, 'stage2')).toBe(true);
    expect(named.delete(B, 'stage1')).toBe(true);
    expect(blobs()).toBe(1);
  });

  it('records restores: a killed one stays running until the next one ends', () => {
    const { id } = named.save(input(A, 'stage3', 'hostname R2'));
    const killed = named.beginRestore(id, ['R2']);
    expect(named.unfinishedRestore(id)).toMatchObject({ id: killed, devices: ['R2'], status: 'running' });
    const next = named.beginRestore(id, null);
    named.finishRestore(id, next, 'partial');
    expect(named.unfinishedRestore(id)).toBeUndefined();
    expect(named.restores(id).map((r) => [r.devices, r.status])).toEqual([
      [['R2'], 'partial'],
      [null, 'partial'],
    ]);
  });
});

describe('the topology plan back to a saved lab', () => {
  it('deletes what is new, sets back names, status and filters, names what a restore cannot create', () => {
    const plan = planLabTopology(topology, {
      nodes: [
        { node_id: 'n1', name: 'R1-renamed', status: 'stopped' },
        { node_id: 'n9', name: 'PC9', status: 'started' },
      ],
      links: [{ link_id: 'l9', filters: {}, label: 'R1:e1 <-> PC9:e0' }],
    });
    expect(plan.delete_nodes).toEqual([{ node_id: 'n9', name: 'PC9' }]);
    expect(plan.delete_links).toEqual([{ link_id: 'l9', label: 'R1:e1 <-> PC9:e0' }]);
    expect(plan.rename).toEqual([{ node_id: 'n1', from: 'R1-renamed', to: 'R1' }]);
    expect(plan.power).toEqual([{ node_id: 'n1', name: 'R1', from: 'stopped', to: 'started' }]);
    expect(plan.missing_nodes).toEqual([{ node_id: 'n2', name: 'R2' }]);
    expect(plan.missing_links).toEqual([{ link_id: 'l1', label: 'R1:e0 <-> R2:e0' }]);
  });
});

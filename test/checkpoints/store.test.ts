/** The checkpoint store on a real sessions.db: deduplicated compressed configurations, per-request capture, request numbering. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HumanMessage } from '@langchain/core/messages';
import { SessionStore } from '../../src/sessions/store.js';
import { CheckpointStore } from '../../src/checkpoints/store.js';
import { vpcsConfigOf, vpcsRestore } from '../../src/checkpoints/vpcs.js';
import { CHECKPOINT_SCHEMA } from '../../src/sessions/checkpoint-schema.js';

let dir: string;
let store: SessionStore;
let cp: CheckpointStore;
const S = 'sess-1';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gcl-cp-'));
  store = await SessionStore.open(dir);
  store.create({ id: S, copilot_mode: 'lab_automation_assistant', agent_mode: 'flat' });
  cp = new CheckpointStore(store.db);
});

afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const big = Array.from({ length: 2000 }, (_, i) => `interface eth${i}\n ip address 10.${i >> 8}.${i & 255}.1/24\nexit`).join('\n');

describe('CheckpointStore', () => {
  it('numbers requests by prompts and rewinds; a checkpoint per call, the first of a request is "before the request"', () => {
    store.saver.log.append(S, 0, [new HumanMessage('configure OSPF on r1 and r2')]);
    expect(cp.currentRequestNo(S)).toBe(1);
    const c1 = cp.saveDevice({ session_id: S, request_no: 1, call_id: 'c1', device: 'r1', config: big });
    // a later call of the request keeps what it found: its own checkpoint, restored by a regression's rewind of it
    const c2 = cp.saveDevice({ session_id: S, request_no: 1, call_id: 'c2', device: 'r1', config: 'later' });
    expect(c2).toBeGreaterThan(c1);
    // the same call twice (a resumed rewind) keeps its first
    expect(cp.saveDevice({ session_id: S, request_no: 1, call_id: 'c2', device: 'r1', config: 'again' })).toBe(c2);
    const r2 = cp.saveDevice({ session_id: S, request_no: 1, call_id: 'c1', device: 'r2', error: 'connection refused' });
    // a later successful capture in the same request replaces the failure
    expect(cp.saveDevice({ session_id: S, request_no: 1, call_id: 'c2', device: 'r2', config: big })).toBe(r2);
    const at1 = cp.devicesAt(S, 1);
    expect(at1.map((d) => [d.device, d.config === big, d.error, d.call_id])).toEqual([
      ['r1', true, null, 'c1'],
      ['r2', true, null, 'c2'],
    ]);
    expect(cp.devicesByIds(S, [c2, r2]).map((d) => [d.device, d.config === big ? 'big' : d.config, d.call_id])).toEqual([
      ['r1', 'later', 'c2'],
      ['r2', 'big', 'c2'],
    ]);
    expect(cp.devicesByIds('another-session', [c1])).toEqual([]);
    // one stored text for two devices (and one for the later capture), compressed
    expect(cp.blobCount()).toBe(2);
    const bytes = store.db.prepare('SELECT MAX(length(data)) FROM checkpoint_blobs').pluck().get() as number;
    expect(bytes).toBeLessThan(big.length / 4);
  });

  it('answers "just before request N" with the first checkpoint at or after N', () => {
    store.saver.log.append(S, 1, [new HumanMessage('now change r1 only')]);
    expect(cp.currentRequestNo(S)).toBe(2);
    cp.saveDevice({ session_id: S, request_no: 2, device: 'r1', config: 'after request 1' });
    cp.saveDevice({ session_id: S, request_no: 2, device: 'r3', error: 'no prompt' });
    expect(cp.devicesAt(S, 1).map((d) => d.device)).toEqual(['r1', 'r2', 'r3']);
    expect(cp.devicesAt(S, 1).find((d) => d.device === 'r1')!.config).toBe(big);
    const at2 = cp.devicesAt(S, 2);
    expect(at2.map((d) => [d.device, d.config, d.error])).toEqual([
      ['r1', 'after request 1', null],
      ['r3', null, 'no prompt'],
    ]);
    expect(cp.devicesAt(S, 2, ['R1']).map((d) => d.device)).toEqual(['r1']);
    expect(cp.devicesAt(S, 3)).toEqual([]);
  });

  it('counts a rewind as a request, between the prompts around it', () => {
    const no = cp.beginRewind(S, 1);
    expect(no).toBe(3);
    expect(cp.unfinishedRewind(S)?.request_no).toBe(3);
    cp.finishRewind(S, 3);
    expect(cp.unfinishedRewind(S)).toBeUndefined();
    store.saver.log.append(S, 2, [new HumanMessage('third prompt\nsecond line')]);
    expect(cp.currentRequestNo(S)).toBe(4);
    expect(cp.requests(S).map((r) => [r.no, r.kind, r.text])).toEqual([
      [1, 'prompt', 'configure OSPF on r1 and r2'],
      [2, 'prompt', 'now change r1 only'],
      [3, 'rewind', 'rewind to before request 1'],
      [4, 'prompt', 'third prompt'],
    ]);
  });

  it('keeps topology checkpoints with what they touched and created', () => {
    cp.saveTopology({
      session_id: S,
      request_no: 4,
      call_id: 'c9',
      before: { nodes: [{ node_id: 'n1', name: 'R1', status: 'started' }], links: [] },
      created: { nodes: ['n9'], links: [] },
    });
    expect(cp.topologyFrom(S, 4).map((t) => [t.call_id, t.before.nodes[0]!.name, t.created.nodes])).toEqual([['c9', 'R1', ['n9']]]);
    expect(cp.topologyFrom(S, 5)).toEqual([]);
  });

  it('migration 9: a database with one checkpoint per request keeps its rows and takes one per call', async () => {
    const old = mkdtempSync(join(tmpdir(), 'gcl-cp9-'));
    try {
      const s8 = await SessionStore.open(old);
      const o = s8.create({ copilot_mode: 'lab_automation_assistant', agent_mode: 'flat' }).id;
      // the table as schema 8 had it: one row per session, request and device
      s8.db.exec(`DROP TABLE device_checkpoints; ${CHECKPOINT_SCHEMA}`);
      const id = new CheckpointStore(s8.db).saveDevice({ session_id: o, request_no: 1, call_id: 'a', device: 'R1', config: 'hostname R1' });
      expect(() =>
        s8.db.prepare("INSERT INTO device_checkpoints (session_id, request_no, device, created_at) VALUES (?, 1, 'R1', 'x')").run(o),
      ).toThrow(/UNIQUE/);
      s8.db.exec('UPDATE schema_version SET version = 8');
      s8.close();
      const s9 = await SessionStore.open(old);
      try {
        const cps = new CheckpointStore(s9.db);
        expect(cps.devicesAt(o, 1).map((d) => [d.id, d.device, d.config])).toEqual([[id, 'R1', 'hostname R1']]);
        const later = cps.saveDevice({ session_id: o, request_no: 1, call_id: 'b', device: 'R1', config: 'hostname R1\nip forwarding' });
        expect(cps.devicesByIds(o, [later])[0]!.config).toBe('hostname R1\nip forwarding');
        expect(cps.devicesAt(o, 1)[0]!.id).toBe(id);
      } finally {
        s9.close();
      }
    } finally {
      rmSync(old, { recursive: true, force: true });
    }
  });

  it('forgets a deleted session', () => {
    cp.deleteSession(S);
    expect(cp.deviceHistory(S)).toEqual([]);
    expect(cp.blobCount()).toBe(0);
  });
});

describe('VPCS settings as configuration', () => {
  const showIp = (ip: string, gw: string, dns = '') =>
    `NAME        : PC1[1]\r\nIP/MASK     : ${ip}\r\nGATEWAY     : ${gw}\r\nDNS         : ${dns}\r\nMAC         : 00:50:79:66:68:00\r\nMTU         : 1500\r\n`;

  it.each([
    [showIp('192.168.1.10/24', '192.168.1.1'), 'ip 192.168.1.10/24 192.168.1.1'],
    [showIp('10.0.0.1/24', '0.0.0.0', '8.8.8.8'), 'ip 10.0.0.1/24\nip dns 8.8.8.8'],
    [showIp('0.0.0.0/0', '0.0.0.0'), ''],
  ])('show ip → %j', (text, config) => expect(vpcsConfigOf(text)).toBe(config));

  it.each([
    ['', 'ip 192.168.1.10/24 192.168.1.1', ['clear ip']],
    ['ip 10.0.0.1/24 10.0.0.254', 'ip 192.168.1.10/24 192.168.1.1', ['ip 10.0.0.1/24 10.0.0.254']],
    ['ip 10.0.0.1/24', 'ip 10.0.0.1/24\nip dns 8.8.8.8', ['clear ip', 'ip 10.0.0.1/24']],
    ['ip 10.0.0.1/24', 'ip 10.0.0.1/24', []],
  ])('restore to %j from %j', (target, current, commands) => expect(vpcsRestore(target, current)).toEqual(commands));
});

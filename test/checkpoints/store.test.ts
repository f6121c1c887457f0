/** The checkpoint store on a real sessions.db: deduplicated compressed configurations, per-request capture, request numbering. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HumanMessage } from '@langchain/core/messages';
import { SessionStore } from '../../src/sessions/store.js';
import { CheckpointStore } from '../../src/checkpoints/store.js';
import { vpcsConfigOf, vpcsRestore } from '../../src/checkpoints/vpcs.js';

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
  it('numbers requests by prompts and rewinds and keeps the first capture of a request', () => {
    store.saver.log.append(S, 0, [new HumanMessage('configure OSPF on r1 and r2')]);
    expect(cp.currentRequestNo(S)).toBe(1);
    expect(cp.saveDevice({ session_id: S, request_no: 1, call_id: 'c1', device: 'r1', config: big })).toBe(true);
    expect(cp.saveDevice({ session_id: S, request_no: 1, call_id: 'c2', device: 'r1', config: 'later' })).toBe(false);
    expect(cp.saveDevice({ session_id: S, request_no: 1, call_id: 'c1', device: 'r2', error: 'connection refused' })).toBe(true);
    // a later successful capture in the same request replaces the failure
    expect(cp.saveDevice({ session_id: S, request_no: 1, call_id: 'c2', device: 'r2', config: big })).toBe(true);
    const at1 = cp.devicesAt(S, 1);
    expect(at1.map((d) => [d.device, d.config === big, d.error, d.call_id])).toEqual([
      ['r1', true, null, 'c1'],
      ['r2', true, null, 'c2'],
    ]);
    // one stored text for two devices, compressed
    expect(cp.blobCount()).toBe(1);
    const bytes = store.db.prepare('SELECT length(data) FROM checkpoint_blobs').pluck().get() as number;
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

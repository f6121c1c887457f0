/**
 * Checkpoints taken by the dispatch on the real FRR lab, through the agent (fake LLM,
 * fake controller whose node is a real router's console, real SQLite): once per device
 * for the batch, after the approvals and before the change runs; a device that cannot be
 * captured is reported and the change still runs on the others.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLab, type Lab } from '../lab/lab.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { frrLabNode } from '../fakes/gns3/nodes.js';
import { collect, ofType, session, testSettings, useFakeLlm } from '../agent/helpers.js';
import { allTools } from '../../src/tools/index.js';
import { SessionStore } from '../../src/sessions/store.js';
import { CheckpointStore } from '../../src/checkpoints/store.js';
import type { ApprovalRequest } from '../../src/core/api.js';
import type { AgentEvent } from '../../src/core/events.js';
import { StreamJsonPrinter } from '../../src/output/stream-json.js';
import { TextPrinter } from '../../src/output/text.js';
import { ResultBuilder } from '../../src/output/summary.js';
import { jsonResultSchema, parseStreamJson } from '../e2e/oneshot-schema.js';
import { nullLogger, type Logger } from '../../src/log.js';

const { tmp, startLlm } = useFakeLlm('gc-cp-dispatch-');
let lab: Lab;
let gns3: FakeGns3;

beforeAll(async () => {
  lab = await startLab({ routers: ['R1'], links: [] });
  gns3 = await startFakeGns3({ api: 'v2' });
  gns3.addProject({ name: 'cp-lab' });
  gns3.addNode(frrLabNode(lab.device('R1'), { project: 'cp-lab' }));
});
afterAll(async () => {
  await gns3?.close();
  await lab?.stop();
});

describe('checkpoints in the dispatch', () => {
  it('captures R1 before its change, reports the device it cannot capture, and the change still runs', async () => {
    const before = lab.vtysh('R1', 'show running-config');
    const configure = (device_name: string, id: string) => ({
      id,
      name: 'execute_multiple_device_config_commands',
      args: { device_configs: [{ device_name, config_commands: ['interface lo', ' description cp-dispatch'] }] },
    });
    const llm = await startLlm([
      // two calls change R1 in one batch: one checkpoint; R9 does not exist: no checkpoint, said so
      { tool_calls: [configure('R1', 'a'), configure('R1', 'b'), configure('R9', 'c')] },
      { text: 'done' },
    ]);
    const s = await session(
      testSettings(llm.url, tmp.dir, { server: gns3.url, project: 'cp-lab', mode: 'lab', approve: 'config' }),
      allTools(),
    );
    const ev = await collect(s.send('describe lo on R1 and R9'));
    const sessionId = s.id;
    await s.close();

    const cps = ofType(ev, 'checkpoint');
    expect(cps.map((c) => [c.id, c.device, c.error === undefined])).toEqual([
      ['a', 'R1', true],
      ['c', 'R9', false],
    ]);
    expect(cps[1]!.error).toMatch(/no node named "R9"/);
    // taken before any call of the batch started
    const firstStart = ev.findIndex((e) => e.type === 'tool_start');
    expect(ev.findIndex((e) => e.type === 'checkpoint')).toBeLessThan(firstStart);
    const ends = Object.fromEntries(ofType(ev, 'tool_end').map((e) => [e.id, e.status]));
    expect(ends).toEqual({ a: 'success', b: 'success', c: 'error' });
    expect(lab.vtysh('R1', 'show running-config')).toContain('description cp-dispatch');

    const store = await SessionStore.open(tmp.dir);
    try {
      const saved = new CheckpointStore(store.db).devicesAt(sessionId, 1);
      const r1 = saved.find((c) => c.device === 'R1')!;
      expect(r1).toMatchObject({ request_no: 1, call_id: 'a' });
      expect(r1.config).not.toContain('cp-dispatch');
      expect(before).toContain(r1.config!.split('\n').slice(-2).join('\n'));
      expect(saved.find((c) => c.device === 'R9')).toMatchObject({ config: null, error: expect.stringMatching(/R9/) });
    } finally {
      store.close();
    }
  });

  it('asks with a preview of the diff per device; a denied call leaves no checkpoint, an approved one keeps what the preview read', async () => {
    const change = (id: string, text: string) => ({
      id,
      name: 'execute_multiple_device_config_commands',
      args: { device_configs: [{ device_name: 'R1', config_commands: ['interface lo', ` description ${text}`, 'exit'] }] },
    });
    const llm = await startLlm([
      { tool_calls: [change('d', 'preview-denied')] },
      { text: 'denied' },
      { tool_calls: [change('y', 'preview-allowed')] },
      { text: 'done' },
    ]);
    const asked: ApprovalRequest[] = [];
    // the console rounds the device engine logs: "R1 read" is one job's lines back to back on R1
    const rounds: string[] = [];
    const log: Logger = {
      ...nullLogger,
      debug: (msg, data) => void (msg === 'device round' && rounds.push(`${String(data?.device)} ${String(data?.mode)}`)),
    };
    const s = await session(
      testSettings(llm.url, tmp.dir, { server: gns3.url, project: 'cp-lab', mode: 'lab', approve: 'ask' }),
      allTools(),
      {
        log,
        approver: (req) => {
          asked.push(req);
          return Promise.resolve({ kind: asked.length === 1 ? 'deny' : 'allow_once' });
        },
      },
    );
    const denied = await collect(s.send('describe lo, first try'));
    // the preview's configuration and the baseline in one round; nothing more for a denied call
    expect(rounds.splice(0)).toEqual(['R1 read']);
    const allowed = await collect(s.send('describe lo, second try'));
    // one round before the apply: the checkpoint and the baseline reuse the preview's read
    expect(rounds.slice(0, rounds.indexOf('R1 config') + 1)).toEqual(['R1 read', 'R1 config']);
    const sessionId = s.id;
    await s.close();

    expect(asked.map((a) => a.preview?.map((p) => p.device))).toEqual([['R1'], ['R1']]);
    const [first, second] = asked.map((a) => a.preview![0]!);
    expect(first!.error).toBeUndefined();
    expect(first!.diff).toMatch(/^--- R1 now$/m);
    expect(first!.diff).toMatch(/^\+ description preview-denied$/m);
    // the earlier test's description is replaced, not kept beside it
    expect(first!.diff).toMatch(/^- description cp-dispatch$/m);
    expect(second!.diff).toMatch(/^\+ description preview-allowed$/m);
    expect(ofType(denied, 'checkpoint')).toEqual([]);
    expect(ofType(allowed, 'checkpoint').map((c) => [c.device, c.error])).toEqual([['R1', undefined]]);
    expect(lab.vtysh('R1', 'show running-config')).toContain('description preview-allowed');
    approvalEventsCarryThePreview([...denied, ...allowed], asked);

    const store = await SessionStore.open(tmp.dir);
    try {
      const saved = new CheckpointStore(store.db).deviceHistory(sessionId);
      // request 1 was denied: nothing captured for it; request 2 kept the configuration its preview was made from
      expect(saved.map((c) => [c.request_no, c.device, c.call_id])).toEqual([[2, 'R1', 'y']]);
      expect(saved[0]!.config).toContain('description cp-dispatch');
      expect(saved[0]!.config).not.toContain('preview-');
    } finally {
      store.close();
    }
  });
});

/** --stream-json shows each approval with the previews the approver saw; --json and text mode stay as they were. */
function approvalEventsCarryThePreview(ev: AgentEvent[], asked: ApprovalRequest[]): void {
  const approvals = ofType(ev, 'approval');
  expect(approvals.map((a) => a.preview)).toEqual(asked.map((a) => a.preview));
  // the question follows the reading: the event is emitted with the preview, before the call runs
  expect(ev.findIndex((e) => e.type === 'approval')).toBeLessThan(ev.findIndex((e) => e.type === 'tool_start'));

  let out = '';
  const stream = new StreamJsonPrinter({ write: (t: string) => (out += t) });
  // a stream is one request: the allowed one, which ends with `done`
  ev.slice(ev.findIndex((e) => e.type === 'done') + 1).forEach((e) => stream.event(e));
  const approval = parseStreamJson(out).find((e) => e.type === 'approval');
  expect(approval).toMatchObject({ type: 'approval', id: 'y', why: 'config', preview: [{ device: 'R1' }] });
  const preview = (approval as { preview: { diff: string }[] }).preview;
  expect(preview[0]!.diff).toMatch(/^\+ description preview-allowed$/m);

  const b = new ResultBuilder('lab_automation_assistant');
  ev.slice(ev.findIndex((e) => e.type === 'done') + 1).forEach((e) => b.add(e));
  const json = jsonResultSchema.parse(JSON.parse(JSON.stringify(b.result())));
  expect(json.tool_calls.map((c) => [c.id, c.status])).toEqual([['y', 'success']]);

  let err = '';
  const text = new TextPrinter({ write: () => true }, { write: (t: string) => ((err += t), true) }, false);
  ev.forEach((e) => text.event(e));
  // text mode has no approval line: the diff is not printed
  expect(err).toContain('execute_multiple_device_config_commands');
  expect(err).not.toMatch(/^\s*\+ description/m);
}

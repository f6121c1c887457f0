/**
 * Transient tool failures are retried (max_retries_per_tool, retry_on_tool_error):
 * the real graph, the fake LLM over HTTP, the real start_gns3_node and
 * manage_gns3_packet_filter tools against the fake GNS3 controller, which drops
 * connections or answers 5xx on demand. A failure after which the controller may have
 * acted is retried only with retry_on_tool_error on, and never for a config call.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../fakes/llm/server.js';
import { startFakeGns3, type FakeGns3 } from '../fakes/gns3/server.js';
import { collect, ofType, session, tempDir, testSettings } from '../agent/helpers.js';
import { startGns3Node } from '../../src/tools/gns3/node-power.js';
import { manageGns3PacketFilter } from '../../src/tools/gns3/packet-filter.js';
import type { ToolDef } from '../../src/tools/types.js';
import type { AgentEvent } from '../../src/core/events.js';
import { TextPrinter } from '../../src/output/text.js';
import { StreamJsonPrinter } from '../../src/output/stream-json.js';
import { ResultBuilder } from '../../src/output/summary.js';
import { findToolCall } from '../../src/ui/state.js';
import { afterTurn, uiState } from '../ui/helpers/ui-state.js';
import { jsonResultSchema, streamEventSchema } from '../e2e/oneshot-schema.js';

process.env.GNS3_COPILOT_TOOL_RETRY_MS = '20';
const tmp = tempDir('gc-retry-');
afterAll(() => tmp.cleanup());
let llm: FakeLlm | undefined;
let gns3: FakeGns3;
beforeEach(async () => {
  gns3 = await startFakeGns3({ api: 'v2' });
  gns3.addProject({ name: 'lab' });
  gns3.addNode({ name: 'R1', node_type: 'vpcs', status: 'stopped' });
});
afterEach(async () => {
  await llm?.close();
  llm = undefined;
  await gns3.close();
});

const START = /\/nodes\/[^/]+\/start$/;
const startCall = (node: string) => ({ id: 's1', name: 'start_gns3_node', args: { nodes: [node] } });
const tools = [startGns3Node] as ToolDef[];
const starts = () => gns3.requests.filter((r) => r.method === 'POST' && START.test(r.path));
const toolMessage = (l: FakeLlm) =>
  String(l.requests.filter((r) => r.purpose === null)[1]!.body.messages.find((m) => m.role === 'tool')!.content);

describe('tool retries', () => {
  it('the controller drops the first connection: one tool_retry, the retry succeeds, nothing else is counted', async () => {
    gns3.inject({ method: 'POST', path: START, destroy: true });
    llm = await startFakeLlm([{ tool_calls: [startCall('R1')] }, { text: 'R1 is up.' }]);
    const s = await session(
      testSettings(llm.url, tmp.dir, { server: gns3.url, project: 'lab', max_tool_calls: 1, retry_on_tool_error: true }),
      tools,
    );
    const ev = await collect(s.send('start R1'));
    const retries = ofType(ev, 'tool_retry');
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ id: 's1', name: 'start_gns3_node', attempt: 1, max_retries: 1 });
    expect(retries[0]!.error).toMatch(/closed the connection/);
    expect(ofType(ev, 'tool_end')[0]).toMatchObject({ id: 's1', status: 'success' });
    expect(starts()).toHaveLength(2);
    expect(gns3.node('R1').status).toBe('started');
    expect(toolMessage(llm)).toContain('"status":"success"');
    const done = ofType(ev, 'done')[0]!;
    // a retry is not a tool call: max_tool_calls 1 was not reached
    expect(done.stopped_reason).toBe('done');
    expect(done.stats.tool_calls).toBe(1);
    renderedByAllPrinters(ev);
    await s.close();
  });

  it('5xx from the controller is retried max_retries_per_tool times, then reported', async () => {
    gns3.inject({ method: 'POST', path: START, status: 503, body: '{"message":"busy","status":503}', times: 10 });
    llm = await startFakeLlm([{ tool_calls: [startCall('R1')] }, { text: 'The controller keeps failing.' }]);
    const s = await session(
      testSettings(llm.url, tmp.dir, { server: gns3.url, project: 'lab', max_retries_per_tool: 2, retry_on_tool_error: true }),
      tools,
    );
    const ev = await collect(s.send('start R1'));
    expect(ofType(ev, 'tool_retry').map((r) => r.attempt)).toEqual([1, 2]);
    expect(starts()).toHaveLength(3);
    expect(ofType(ev, 'tool_end')[0]!.status).toBe('error');
    expect(toolMessage(llm)).toContain('HTTP 503');
    await s.close();
  });

  it('retry_on_tool_error off (the default): a connection dropped after the request is reported at once', async () => {
    gns3.inject({ method: 'POST', path: START, destroy: true });
    llm = await startFakeLlm([{ tool_calls: [startCall('R1')] }, { text: 'failed' }]);
    const s = await session(testSettings(llm.url, tmp.dir, { server: gns3.url, project: 'lab' }), tools);
    const ev = await collect(s.send('start R1'));
    expect(ofType(ev, 'tool_retry')).toHaveLength(0);
    expect(starts()).toHaveLength(1);
    expect(ofType(ev, 'tool_end')[0]!.status).toBe('error');
    await s.close();
  });

  it('a config call the controller may have applied (connection dropped after the request) is never sent again, even with retry_on_tool_error', async () => {
    gns3.addNode({ name: 'R2', node_type: 'vpcs', status: 'stopped' });
    gns3.addLink({ a: 'R1:e0', b: 'R2:e0', project: 'lab' });
    const PUT_LINK = /\/links\/[^/]+$/;
    gns3.inject({ method: 'PUT', path: PUT_LINK, destroy: true });
    const set = {
      id: 'f1',
      name: 'manage_gns3_packet_filter',
      args: { link: 'R1 R2', action: 'set', filters: { packet_loss: [30] }, fault: { scenario: 'link_packet_loss_30' } },
    };
    llm = await startFakeLlm([{ tool_calls: [set] }, { text: 'the controller dropped the connection' }]);
    const s = await session(
      testSettings(llm.url, tmp.dir, {
        server: gns3.url,
        project: 'lab',
        mode: 'inject',
        approve: 'config',
        retry_on_tool_error: true,
        max_retries_per_tool: 3,
      }),
      [manageGns3PacketFilter] as ToolDef[],
    );
    const ev = await collect(s.send('drop 30% on R1–R2'));
    expect(ofType(ev, 'tool_retry')).toHaveLength(0);
    expect(ofType(ev, 'tool_end')[0]!.status).toBe('error');
    expect(gns3.requests.filter((r) => r.method === 'PUT' && PUT_LINK.test(r.path))).toHaveLength(1);
    await s.close();
  });

  it('a non-transient failure (unknown node, controller 4xx) is never retried', async () => {
    gns3.inject({ method: 'POST', path: START, status: 409, body: '{"message":"conflict","status":409}' });
    llm = await startFakeLlm([
      { tool_calls: [startCall('R1'), { id: 's2', name: 'start_gns3_node', args: { nodes: ['NOPE'] } }] },
      { text: 'failed' },
    ]);
    const s = await session(testSettings(llm.url, tmp.dir, { server: gns3.url, project: 'lab', max_retries_per_tool: 5 }), tools);
    const ev = await collect(s.send('start R1 and NOPE'));
    expect(ofType(ev, 'tool_retry')).toHaveLength(0);
    expect(ofType(ev, 'tool_end').map((e) => e.status)).toEqual(['error', 'error']);
    expect(starts()).toHaveLength(1);
    await s.close();
  });
});

/** The text printer, --json, --stream-json and the TUI state all show the retry. */
function renderedByAllPrinters(ev: AgentEvent[]): void {
  const err: string[] = [];
  const text = new TextPrinter({ write: () => true }, { write: (x: string) => err.push(x) }, false);
  ev.forEach((e) => text.event(e));
  expect(err.join('')).toMatch(/↻ start_gns3_node failed transiently, retry 1\/1 in \d+ ms: .*closed the connection/);

  const b = new ResultBuilder('teaching_assistant');
  ev.forEach((e) => b.add(e));
  const json = jsonResultSchema.parse(JSON.parse(JSON.stringify(b.result())));
  expect(json.tool_calls[0]).toMatchObject({ name: 'start_gns3_node', status: 'success', retries: 1 });

  const lines: string[] = [];
  const stream = new StreamJsonPrinter({ write: (x: string) => lines.push(x) });
  ev.forEach((e) => stream.event(e));
  const retry = lines.map((l) => streamEventSchema.parse(JSON.parse(l))).find((e) => e.type === 'tool_retry');
  expect(retry).toMatchObject({ type: 'tool_retry', id: 's1', attempt: 1 });

  const ui = afterTurn(
    'start R1',
    ev.filter((x) => x.type !== 'done'),
    uiState({ model: 'fake' }),
  );
  expect(findToolCall(ui, 's1')!.retry).toEqual({ attempt: 1, max: 1 });
}

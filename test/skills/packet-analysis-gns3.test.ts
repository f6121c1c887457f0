/**
 * packet_analysis through the real GNS3 client against the fake controller (v2 and v3)
 * over HTTP: the fake streams a pcap captured for real in network namespaces, the tool
 * starts/stops the capture through the API and analyses the bytes with tshark.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openProjectScope } from '../../src/gns3/client.js';
import { packetAnalysisTool } from '../../src/tools/skills/packet-analysis.js';
import { rig, runTool, toolCtx, type Rig } from '../gns3/helpers.js';
import { startVethLab, type VethLab } from './netns.js';

/** The packets of a classic pcap file (dumpcap -P): a 24-byte file header, then per packet a 16-byte header whose third word is its length. */
function pcapRecords(file: Uint8Array): number {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const little = view.getUint32(0, true) === 0xa1b2c3d4;
  let n = 0;
  for (let at = 24; at + 16 <= file.byteLength; n++) at += 16 + view.getUint32(at + 8, little);
  return n;
}

let lab: VethLab;
let pcap: Uint8Array;
let current: Rig | undefined;

beforeAll(async () => {
  lab = startVethLab();
  pcap = await lab.captureTraffic();
});
afterAll(() => lab?.stop());
afterEach(async () => {
  await current?.close();
  current = undefined;
});

describe.each(['v2', 'v3'] as const)('packet_analysis via the GNS3 API (%s)', (api) => {
  async function setup() {
    current = await rig(api);
    current.fake.addProject({ name: 'pa' });
    current.fake.addNode({ name: 'R1', node_type: 'qemu', console_host: '127.0.0.1', console: 5001, status: 'started', tags: ['device_type:frr'] });
    current.fake.addNode({ name: 'R2', node_type: 'qemu', console_host: '127.0.0.1', console: 5002, status: 'started', tags: ['device_type:frr'] });
    const link = current.fake.addLink({ a: 'R1:e0', b: 'R2:e0' });
    const project = await openProjectScope(current.client, 'pa');
    return { link, ctx: toolCtx(current.settings, async () => project) };
  }

  it('captures the link by node names, analyses the stream and stops the capture', async () => {
    const { link, ctx } = await setup();
    current!.fake.setLinkPcap(link.link_id, pcap, { packetIntervalMs: 5 });
    // the whole stream, every packet of it: the capture stops at its last packet instead of waiting out the window
    const streamed = pcapRecords(pcap);
    expect(streamed).toBeGreaterThanOrEqual(11);
    const args = { link: 'R1<->R2', seconds: 30, packets: streamed, display_filter: 'tcp.flags.syn == 1', fields: ['ip.src', 'ip.dst'] };
    const r = await runTool(packetAnalysisTool, args, ctx);
    expect(r.status).toBe('success');
    expect(r.packets_captured).toBe(streamed);
    expect(r.rows.map((row: string[]) => row.slice(1))).toEqual([
      [lab.ip1, lab.ip2],
      [lab.ip2, lab.ip1],
    ]);
    expect(r.summary.protocols.some((p: any) => p.protocol === 'eth:ip:tcp')).toBe(true);
    const paths = current!.fake.requests.map((q) => `${q.method} ${q.path}`).filter((p) => p.includes(link.link_id));
    expect(paths.some((p) => /POST .*(start_capture|capture\/start)$/.test(p))).toBe(true);
    expect(paths.some((p) => /POST .*(stop_capture|capture\/stop)$/.test(p))).toBe(true);
    expect(current!.fake.project().links.get(link.link_id)!.capturing).toBe(false);
  });

  it('honours the packet limit on the live stream', async () => {
    const { link, ctx } = await setup();
    current!.fake.setLinkPcap(link.link_id, pcap, { packetIntervalMs: 50 });
    const t0 = Date.now();
    const r = await runTool(packetAnalysisTool, { link: link.link_id, seconds: 90, packets: 3 }, ctx);
    // the window is 90 s: ending well inside it shows the packet limit stopped the capture,
    // with room for a loaded CI machine
    expect(Date.now() - t0).toBeLessThan(45_000);
    expect(r.packets_captured).toBe(3);
    expect(r.rows).toHaveLength(3);
  }, 120_000);

  it('reports a link that does not exist as a tool error', async () => {
    const { ctx } = await setup();
    const r = await runTool(packetAnalysisTool, { link: 'R1<->R9', seconds: 1 }, ctx);
    expect(r.status).toBe('error');
    expect(r.error).toMatch(/^capture failed: /);
  });

  it('reports an idle link as no traffic', async () => {
    const { ctx } = await setup();
    const r = await runTool(packetAnalysisTool, { link: 'R1 R2', seconds: 1 }, ctx);
    expect(r.status).toBe('success');
    expect(r.packets_captured).toBe(0);
    expect(r.notes.join(' ')).toMatch(/no traffic/);
  });
});

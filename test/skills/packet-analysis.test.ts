/**
 * packet_analysis on REAL traffic: two network namespaces joined by a veth pair,
 * dumpcap capturing inside one of them while a TCP exchange and a UDP datagram to a
 * closed port run, then the real tshark analysing the bytes.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settingsSchema } from '../../src/config/schema.js';
import type { CaptureOptions, ProjectScope } from '../../src/gns3/types.js';
import { nullLogger } from '../../src/log.js';
import { analyzePcap, parseSummary } from '../../src/packets/pcap-analysis.js';
import { packetAnalysisTool } from '../../src/tools/skills/packet-analysis.js';
import type { ToolContext } from '../../src/tools/types.js';
import { outcomeText } from '../../src/tools/registry.js';
import { startVethLab, type VethLab } from './netns.js';

let lab: VethLab;
let pcap: Uint8Array;
let scratchTmp: string;
const savedTmp = process.env.TMPDIR;

beforeAll(async () => {
  lab = startVethLab();
  pcap = await lab.captureTraffic();
  // The tool's temp files go here, so the tests can prove they are removed.
  scratchTmp = mkdtempSync(join(tmpdir(), 'skills-pa-tmp-'));
  process.env.TMPDIR = scratchTmp;
});
afterAll(() => {
  lab?.stop();
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  rmSync(scratchTmp, { recursive: true, force: true });
});

interface Calls {
  link: string;
  opts: CaptureOptions;
}

function ctxWith(capture: (link: string, opts: CaptureOptions) => Promise<Uint8Array>, calls: Calls[] = []): ToolContext {
  const project: ProjectScope = {
    projectId: 'p1',
    projectName: 'lab',
    getTopology: async () => ({ project_id: 'p1', project_name: 'lab', nodes: [], links: [] }),
    capture: async (link, opts) => {
      calls.push({ link, opts });
      return capture(link, opts);
    },
  };
  return { settings: settingsSchema.parse({}), signal: new AbortController().signal, log: nullLogger, project: async () => project, services: new Map() };
}

async function run(args: Record<string, unknown>, ctx: ToolContext): Promise<any> {
  return JSON.parse(outcomeText(await packetAnalysisTool.run(packetAnalysisTool.schema.parse(args), ctx)));
}

describe('analysis of a real capture', () => {
  it('summarizes protocols and conversations and lists every packet', async () => {
    const a = await analyzePcap(pcap);
    // ARP request/reply, 3-way handshake, data + ack, FIN/ACK ×2, UDP, ICMP port unreachable
    expect(a.packets_captured).toBeGreaterThanOrEqual(11);
    const protos = Object.fromEntries(a.summary.protocols.map((p) => [p.protocol, p.frames]));
    expect(protos['eth']).toBe(a.packets_captured);
    expect(protos['eth:arp']).toBe(2);
    expect(protos['eth:ip:tcp']).toBeGreaterThanOrEqual(7);
    expect(protos['eth:ip:udp']).toBe(1);
    expect(protos['eth:ip:icmp']).toBe(1);
    const conv = a.summary.ip_conversations[0]!;
    expect([conv.a, conv.b].sort()).toEqual([lab.ip1, lab.ip2].sort());
    expect(conv.frames).toBe(a.packets_captured - 2);
    expect(conv.frames_a_to_b + conv.frames_b_to_a).toBe(conv.frames);
    expect(a.rows).toHaveLength(a.packets_captured);
    const info = a.rows.map((r) => r[6]).join('\n');
    expect(info).toContain(`Who has ${lab.ip2}? Tell ${lab.ip1}`);
    expect(info).toMatch(/→ 8080 \[SYN\]/);
    expect(info).toContain('Destination unreachable (Port unreachable)');
  });

  it('applies a display filter and prints chosen fields', async () => {
    const a = await analyzePcap(pcap, { display_filter: 'tcp.flags.syn == 1', fields: ['ip.src', 'tcp.dstport', 'tcp.flags.ack'] });
    expect(a.fields).toEqual(['frame.number', 'ip.src', 'tcp.dstport', 'tcp.flags.ack']);
    expect(a.packets_matched).toBe(2);
    expect(a.rows.map((r) => r.slice(1))).toEqual([
      [lab.ip1, '8080', '0'],
      [lab.ip2, expect.stringMatching(/^\d+$/), '1'],
    ]);
  });

  it('caps the rows and says so', async () => {
    const a = await analyzePcap(pcap, { max_packets_output: 3 });
    expect(a.rows).toHaveLength(3);
    expect(a.rows_truncated).toBe(true);
    expect(a.notes.join(' ')).toMatch(/showing 3 of \d+ matching packets/);
  });

  it('keeps the complete packets of a stream cut mid-record', async () => {
    const cut = pcap.subarray(0, pcap.length - 10);
    const a = await analyzePcap(cut);
    const full = await analyzePcap(pcap);
    expect(a.packets_captured).toBe(full.packets_captured - 1);
    expect(a.notes).toContain('last packet was incomplete and was dropped');
  });

  it('handles an empty capture (GNS3 sends 0 bytes when there is no traffic) and a header-only pcap', async () => {
    const none = await analyzePcap(new Uint8Array(0));
    expect(none.packets_captured).toBe(0);
    expect(none.notes[0]).toMatch(/no traffic/);
    const headerOnly = await analyzePcap(pcap.subarray(0, 24));
    expect(headerOnly.packets_captured).toBe(0);
    expect(headerOnly.rows).toEqual([]);
  });

  it('parses tshark summaries with kB sizes', () => {
    const s = parseSummary(`IPv4 Conversations
Filter:<No Filter>
10.0.0.1             <-> 10.0.0.2                 120 12 kB         130 13 kB         250 25 kB       0.000000000        10.0000
`);
    expect(s.ip_conversations).toEqual([{ a: '10.0.0.1', b: '10.0.0.2', frames: 250, bytes: '25 kB', frames_a_to_b: 130, frames_b_to_a: 120 }]);
  });
});

describe('packet_analysis tool with a live capture in the namespaces', () => {
  it('captures on the link, analyses, and removes its temp files', async () => {
    const calls: Calls[] = [];
    const ctx = ctxWith((_link, opts) => lab.captureTraffic(opts.signal), calls);
    const r = await run({ link: 'R1:e0<->R2:e0', seconds: 2, display_filter: 'tcp || udp || icmp' }, ctx);
    expect(r.status).toBe('success');
    expect(calls).toEqual([{ link: 'R1:e0<->R2:e0', opts: expect.objectContaining({ seconds: 2 }) }]);
    expect(r.capture.seconds).toBe(2);
    expect(r.packets_matched).toBeGreaterThanOrEqual(9);
    expect(r.rows.every((row: string[]) => ['TCP', 'UDP', 'ICMP'].includes(row[4]!))).toBe(true);
    expect(readdirSync(scratchTmp)).toEqual([]);
  });

  it('stops after N packets', async () => {
    const ctx = ctxWith((_link, opts) => lab.capture(opts, () => lab.traffic()));
    const t0 = Date.now();
    const r = await run({ link: 'l1', seconds: 90, packets: 4 }, ctx);
    // the window is 90 s: ending well inside it shows the packet limit stopped the capture,
    // with room for a loaded CI machine
    expect(Date.now() - t0).toBeLessThan(45_000);
    expect(r.status).toBe('success');
    expect(r.packets_captured).toBe(4);
  }, 120_000);

  it('reports "no traffic" for a quiet link', async () => {
    const ctx = ctxWith((_link, opts) => lab.capture(opts));
    const r = await run({ link: 'l1', seconds: 1 }, ctx);
    expect(r.status).toBe('success');
    expect(r.packets_captured).toBe(0);
    expect(r.notes.join(' ')).toMatch(/no traffic/);
  });

  it('rejects a bad display filter or field before capturing anything', async () => {
    const calls: Calls[] = [];
    const ctx = ctxWith(async () => pcap, calls);
    const f = await run({ link: 'l1', display_filter: 'ospf && bogusproto' }, ctx);
    expect(f).toEqual({ status: 'error', error: expect.stringMatching(/^invalid display filter: bogusproto is neither/), display_filter: 'ospf && bogusproto' });
    const e = await run({ link: 'l1', fields: ['ip.src', 'ip.nosuchfield', 'ospf.area_id'] }, ctx);
    expect(e).toEqual({ status: 'error', error: 'unknown tshark field: ip.nosuchfield', invalid_fields: ['ip.nosuchfield'] });
    expect(calls).toEqual([]);
    expect(readdirSync(scratchTmp)).toEqual([]);
  });

  it('accepts column pseudo-fields like _ws.col.Info', async () => {
    const r = await run({ link: 'l1', fields: ['_ws.col.Protocol', '_ws.col.Info'], display_filter: 'arp' }, ctxWith(async () => pcap));
    expect(r.status).toBe('success');
    expect(r.rows[0][1]).toBe('ARP');
  });

  it('reports capture failures and unreadable bytes as errors, not throws', async () => {
    const failing = await run({ link: 'nope' }, ctxWith(async () => Promise.reject(new Error('No link matches "nope"'))));
    expect(failing).toEqual({ status: 'error', error: 'capture failed: No link matches "nope"', link: 'nope' });
    const garbage = await run({ link: 'l1' }, ctxWith(async () => new TextEncoder().encode('<html>this is not a pcap at all</html>')));
    expect(garbage.status).toBe('error');
    expect(garbage.error).toMatch(/^tshark could not read the capture/);
    expect(readdirSync(scratchTmp)).toEqual([]);
  });

  it('enforces the time budget', async () => {
    await expect(analyzePcap(pcap, { timeoutMs: 1 })).rejects.toThrow(/time limit/);
    expect(readdirSync(scratchTmp)).toEqual([]);
  });

  it('says clearly when tshark is missing', async () => {
    const saved = process.env.GNS3_COPILOT_TSHARK;
    process.env.GNS3_COPILOT_TSHARK = join(scratchTmp, 'no-tshark-here');
    try {
      const r = await run({ link: 'l1' }, ctxWith(async () => pcap));
      expect(r).toEqual({ status: 'error', error: expect.stringMatching(/GNS3_COPILOT_TSHARK=.* is not an executable tshark/) });
    } finally {
      if (saved === undefined) delete process.env.GNS3_COPILOT_TSHARK;
      else process.env.GNS3_COPILOT_TSHARK = saved;
    }
  });

  it('validates its arguments with zod', () => {
    expect(packetAnalysisTool.schema.safeParse({ link: '' }).success).toBe(false);
    expect(packetAnalysisTool.schema.safeParse({ link: 'x', seconds: 0 }).success).toBe(false);
    expect(packetAnalysisTool.schema.safeParse({ link: 'x', fields: Array(31).fill('ip.src') }).success).toBe(false);
    expect(packetAnalysisTool.risk).toBe('read');
  });
});

describe('packet_analysis with a protocol skill', () => {
  it('uses the skill entry\'s display filter and fields', async () => {
    const r = await run({ link: 'l1', protocol: 'arp' }, ctxWith(async () => pcap));
    expect(r.status).toBe('success');
    expect(r.protocol).toBe('arp');
    expect(r.display_filter).toBe('arp');
    expect(r.fields).toEqual(['frame.number', 'frame.time_relative', 'arp.opcode', 'arp.src.hw_mac', 'arp.src.proto_ipv4', 'arp.dst.proto_ipv4', 'arp.duplicate-address-detected']);
    expect(r.rows.map((row: string[]) => [row[2], row[4], row[5]])).toEqual([
      ['1', lab.ip1, lab.ip2],
      ['2', lab.ip2, lab.ip1],
    ]);
  });

  it('lets explicit arguments win and rejects unknown protocols', async () => {
    const r = await run({ link: 'l1', protocol: 'tcp_handshake', fields: ['tcp.flags.syn'] }, ctxWith(async () => pcap));
    expect(r.display_filter).toBe('tcp.flags.syn == 1 || tcp.flags.reset == 1');
    expect(r.fields).toEqual(['frame.number', 'tcp.flags.syn']);
    const bad = await run({ link: 'l1', protocol: 'ospff' }, ctxWith(async () => pcap));
    expect(bad).toEqual({ status: 'error', error: 'unknown protocol "ospff"', did_you_mean: ['ospf'] });
  });
});

/** packet_analysis_skills: what to capture and look at per protocol (tshark filter, fields, checks). */
import { z } from 'zod';
import { failure } from '../types.js';
import { findProtocol, suggest } from '../../skills/lookup.js';
import type { PacketSkill } from '../../skills/schema.js';
import { lookupName, skillTool } from './library.js';
import { count } from '../../core/plural.js';

export const packetAnalysisSkillsTool = skillTool({
  name: 'packet_analysis_skills',
  description:
    'Packet-analysis knowledge per protocol: tshark display filter, the useful tshark field names and what to check ' +
    '(e.g. ospf, bgp, arp, icmp, stp, dhcp, dns, tcp_retransmissions, vrrp). No argument: list protocols by layer. ' +
    'Use the filter and fields with packet_analysis.',
  brief: 'Filters and tshark fields per protocol; no args: list.',
  schema: z.object({
    protocol: lookupName(200, 'protocol or alias; several separated by commas, e.g. "ospf,bgp"'),
  }),
  lookup(args, lib) {
    if (!args.protocol) {
      const layers: Record<string, string[]> = {};
      for (const p of lib.packet.values()) (layers[p.layer] ??= []).push(p.protocol);
      return { status: 'success', data: { count: lib.packet.size, protocols_by_layer: layers }, display: count(lib.packet.size, 'protocol') };
    }
    const names = args.protocol.split(',').map((s) => s.trim()).filter(Boolean).slice(0, 10);
    const found: PacketSkill[] = [];
    const missing: { name: string; did_you_mean: string[] }[] = [];
    for (const n of names) {
      const p = findProtocol(lib, n);
      if (p) found.push(p);
      else missing.push({ name: n, did_you_mean: suggest([...lib.packet.keys()], n) });
    }
    if (found.length === 0) {
      return failure(`unknown protocol "${args.protocol}"`, { missing, available: [...lib.packet.keys()] });
    }
    const entries = found.map((p) => ({ ...p, aliases: undefined }));
    return {
      status: 'success',
      data: { ...(entries.length === 1 ? entries[0] : { protocols: entries }), ...(missing.length ? { missing } : {}) },
      display: found.map((p) => p.protocol).join(', '),
    };
  },
});

/**
 * packet_analysis: capture live traffic on a link of the session's project and
 * analyse it with tshark. Inputs are validated before the capture so a typo in a
 * field name does not cost the user a 10-second capture.
 */
import { z } from 'zod';
import { defineTool, failure } from '../types.js';
import { errorMessage } from '../../errors.js';
import { AnalysisInputError, analyzePcap, validateAnalysisInput } from '../../packets/pcap-analysis.js';
import { TsharkError, requireTshark } from '../../packets/tshark.js';
import { toolLibrary } from './library.js';
import { findProtocol, suggest } from '../../skills/lookup.js';
import { count } from '../../core/plural.js';

const TSHARK_BUDGET_MS = 30_000;

export const packetAnalysisSchema = z.object({
  link: z
    .string()
    .trim()
    .min(1)
    .describe('link id, or its ends as "R1:e0<->R2:e0" / "R1<->R2"')
    .meta({ brief: 'id or "R1:e0<->R2:e0"' }),
  seconds: z.number().min(1).max(120).optional().describe('capture window in seconds (default 10)'),
  packets: z.number().int().min(1).max(100_000).optional().describe('stop after this many packets'),
  display_filter: z
    .string()
    .trim()
    .min(1)
    .max(500)
    .optional()
    .describe('tshark display filter, e.g. "ospf" or "icmp && ip.src==10.0.0.1"'),
  fields: z
    .array(z.string().trim().min(1).max(100))
    .max(30)
    .optional()
    .describe('tshark field names to print per packet (see packet_analysis_skills); default: a one-line summary'),
  max_packets_output: z.number().int().min(1).max(1000).optional().describe('packet rows returned (default 50)'),
  protocol: z
    .string()
    .trim()
    .min(1)
    .max(60)
    .optional()
    .describe('a packet_analysis_skills protocol (e.g. "ospf"): its display filter and fields are used unless given explicitly'),
});

export const packetAnalysisTool = defineTool({
  name: 'packet_analysis',
  description:
    'Capture live traffic on a GNS3 link for a few seconds and analyse it with tshark: protocol hierarchy, ' +
    'IP conversations and one row per packet (optionally filtered with a display filter and chosen fields). ' +
    'Pass protocol (e.g. "ospf", see packet_analysis_skills) to use that protocol\'s display filter and fields.',
  brief: 'Capture a link, analyse with tshark; protocol sets filter and fields.',
  schema: packetAnalysisSchema,
  risk: 'read',
  async run(input, ctx) {
    let args = input;
    if (input.protocol) {
      const { lib } = toolLibrary(ctx);
      const skill = findProtocol(lib, input.protocol);
      if (!skill) {
        return failure(`unknown protocol "${input.protocol}"`, { did_you_mean: suggest([...lib.packet.keys()], input.protocol) });
      }
      args = {
        ...input,
        display_filter: input.display_filter ?? skill.display_filter,
        fields: input.fields ?? ['frame.time_relative', ...skill.fields.map((f) => f.field)],
      };
    }
    try {
      requireTshark();
      await validateAnalysisInput(args, ctx.signal);
    } catch (err) {
      if (err instanceof AnalysisInputError) return failure(err.message, err.detail);
      if (err instanceof TsharkError) return failure(err.message);
      throw err;
    }
    const project = await ctx.project();
    const seconds = args.seconds ?? 10;
    const started = Date.now();
    let pcap: Uint8Array;
    try {
      pcap = await project.capture(args.link, { seconds, packets: args.packets, signal: ctx.signal });
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      return failure(`capture failed: ${errorMessage(err)}`, { link: args.link });
    }
    const captureMs = Date.now() - started;
    try {
      const analysis = await analyzePcap(pcap, {
        display_filter: args.display_filter,
        fields: args.fields,
        max_packets_output: args.max_packets_output,
        timeoutMs: TSHARK_BUDGET_MS,
        signal: ctx.signal,
      });
      ctx.log.debug('packet_analysis', { link: args.link, packets: analysis.packets_captured, capture_ms: captureMs });
      return {
        status: 'success',
        data: {
          link: args.link,
          ...(args.protocol ? { protocol: args.protocol } : {}),
          capture: { seconds, packets_limit: args.packets, duration_ms: captureMs },
          ...analysis,
        },
        display: `${args.link}: ${count(analysis.packets_captured, 'packet')} in ${seconds} s`,
      };
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      if (err instanceof AnalysisInputError) return failure(err.message, err.detail);
      if (err instanceof TsharkError) return failure(err.message, { link: args.link });
      throw err;
    }
  },
});

/**
 * The task protocol's own tools: `read_context_ref` (every session) reads a context ref the
 * calling agent holds, in slices; `review_task` (recursive sessions only) is a parent's decision on a
 * validated report (the review gate). They act on the tree, not on the lab: read-only, never need approval, never count
 * against the request's tool-call limits.
 */
import { z } from 'zod';
import { defineTool, failure, type ToolDef } from '../../tools/types.js';
import { DelegationRefused, type TreeEngine } from './engine.js';

export const REVIEW_TOOL = 'review_task';

/** A slice small enough to come back whole inside the tool-output cap. */
const READ_DEFAULT = 8000;
const READ_MAX = 12_000;

/**
 * `read_context_ref`, in every session: a sub-agent reads the refs its parent granted, and any
 * agent pages its own tool results that were cut to `tool_result_tokens` (stored whole).
 * `fit` bounds a page to the same token limit, so a page is never cut again.
 */
export function readContextRefTool(engine: TreeEngine, fit?: (s: string) => string): ToolDef {
  return defineTool({
    name: 'read_context_ref',
    description: `Read a context ref in slices: one your parent granted you (listed in your brief), or a tool result of yours that was cut (its note names the ref and the line to read from). Give line (1-based) or offset (characters) and limit (at most ${READ_MAX} characters per call); read on from next_offset until it is absent.`,
    brief: 'Page a granted ref or a cut result from line or offset; go on from next_offset.',
    risk: 'read',
    group: 'protocol',
    schema: z.object({
      ref_id: z.string().min(1),
      line: z.number().int().min(1).optional(),
      offset: z.number().int().min(0).optional(),
      limit: z.number().int().min(1).max(READ_MAX).optional(),
    }),
    async run(args, ctx) {
      try {
        const r = engine.readRef(
          {
            refId: args.ref_id,
            offset: args.offset ?? 0,
            ...(args.line !== undefined ? { line: args.line } : {}),
            limit: args.limit ?? READ_DEFAULT,
            ...(fit ? { fit } : {}),
          },
          ctx,
        );
        return {
          status: 'success',
          data: {
            ref_id: r.ref.id,
            source: r.ref.source,
            size: r.ref.size,
            offset: r.offset,
            ...(r.next_offset !== undefined ? { next_offset: r.next_offset } : {}),
            content: r.content,
          },
          display: `read ${r.content.length} of ${r.ref.size} characters of ${r.ref.id}`,
        };
      } catch (err) {
        if (err instanceof DelegationRefused) return failure(err.message, {}, { code: err.code });
        throw err;
      }
    },
  });
}

export function reviewTaskTool(engine: TreeEngine): ToolDef {
  return defineTool({
    name: REVIEW_TOOL,
    description:
      "Decide on a sub-agent's validated report (each report awaits your review before you may answer): accept it; revise (the same sub-agent goes on with your note, no new sub-agent); replan or split (you then delegate new briefs with `agent`). The note says why, or what to change.",
    brief: "Decide on a sub-agent's report; note says why or what to change.",
    risk: 'read',
    group: 'protocol',
    schema: z.object({
      agent_id: z.string().min(1).describe("the sub-agent whose report you review (its report's agent_id)"),
      decision: z.enum(['accept', 'revise', 'replan', 'split']),
      note: z.string().trim().max(4000).default('').describe('why; for revise, what the sub-agent must change or add'),
    }),
    async run(args, ctx) {
      try {
        const r = await engine.review(args.agent_id, args.decision, args.note, ctx);
        const awaiting = r.pending.length ? { awaiting_review: r.pending } : {};
        if (r.report)
          return { status: 'success', data: JSON.stringify({ ...r.report, ...awaiting }), display: `revised: ${r.report.status}` };
        const next =
          args.decision === 'accept'
            ? 'accepted'
            : `${args.decision}: delegate the new brief${args.decision === 'split' ? 's' : ''} with agent`;
        return {
          status: 'success',
          data: { agent_id: args.agent_id, decision: args.decision, next, ...awaiting },
          display: `${args.decision} ${args.agent_id.slice(0, 8)}`,
        };
      } catch (err) {
        if (err instanceof DelegationRefused) return failure(err.message, {}, { code: err.code });
        throw err;
      }
    },
  });
}

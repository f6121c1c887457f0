/**
 * The recursive task protocol's own tools (registered only in recursive sessions):
 * `read_context_ref` reads a context ref granted to the calling sub-agent, in slices.
 * They act on the tree, not on the lab: read-only, never need approval.
 */
import { z } from 'zod';
import { defineTool, failure, type ToolDef } from '../../tools/types.js';
import { DelegationRefused, type TreeEngine } from './engine.js';

/** A slice small enough to come back whole inside the tool-output cap. */
const READ_DEFAULT = 8000;
const READ_MAX = 12_000;

export function readContextRefTool(engine: TreeEngine): ToolDef {
  return defineTool({
    name: 'read_context_ref',
    description: `Read a context ref your parent granted you (listed in your brief), whole or in slices: give offset and limit (at most ${READ_MAX} characters per call) and read on from next_offset until it is absent.`,
    risk: 'read',
    group: 'protocol',
    schema: z.object({
      ref_id: z.string().min(1).describe('the id of the ref as your brief lists it'),
      offset: z.number().int().min(0).optional().describe('first character to read (default 0)'),
      limit: z.number().int().min(1).max(READ_MAX).optional().describe(`characters to read (default ${READ_DEFAULT})`),
    }),
    async run(args) {
      try {
        const r = engine.readRef(args.ref_id, args.offset ?? 0, args.limit ?? READ_DEFAULT);
        return {
          status: 'success',
          data: {
            ref_id: r.ref.id,
            source: r.ref.source,
            size: r.ref.size,
            offset: args.offset ?? 0,
            ...(r.next_offset !== undefined ? { next_offset: r.next_offset } : {}),
            content: r.content,
          },
          display: `read ${r.content.length} of ${r.ref.size} characters of ${r.ref.id}`,
        };
      } catch (err) {
        if (err instanceof DelegationRefused) return failure(err.message);
        throw err;
      }
    },
  });
}

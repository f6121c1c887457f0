/**
 * bulkTool(): the shape shared by the GNS3 tools that act on a list of items
 * (create nodes, create links, rename, power): open the project, turn the
 * arguments into items, run each item (its failure is its own result) and answer
 * a batch outcome (../batch.ts): `success`, `partial` or `error` with
 * `{"results":[…]}`. A failure before the per-item stage (no project, controller
 * down) is an error outcome.
 */
import { z } from 'zod';
import type { Gns3Project } from '../../gns3/project.js';
import { defineTool, type ChangeRisk, type ToolContext, type ToolDef, type ToolOutcome, type ToolTargetsFn } from '../types.js';
import type { ToolName } from '../../core/modes.js';
import { guarded, projectOf, runItems } from './common.js';
import { batchOutcome } from '../batch.js';

interface BulkToolBase<S extends z.ZodType, I> {
  name: ToolName;
  description: string;
  /** the model's description (ToolDef.brief; absent: `description`) */
  brief?: string;
  schema: S;
  /** the items of one call, in the order they run (may ask the project, e.g. for free spots) */
  items(args: z.infer<S>, project: Gns3Project, ctx: ToolContext): I[] | Promise<I[]>;
  /** what the items are, plural, for the display line ("nodes": `1 of 3 nodes failed: …`) */
  noun: string;
  /** does one item; the fields it returns are that item's result (`status: "success"` is added) */
  run(item: I, project: Gns3Project, ctx: ToolContext): Promise<object>;
  /** names a failed item in its result (`status: "error"` and `error` are added) */
  describe(item: I): Record<string, unknown>;
  /** an item that ran but did not get where it should (e.g. a node still stopped at the deadline): its error message */
  failure?(result: Record<string, unknown>): string | undefined;
  /** items in flight at once; 1 when an item depends on the ones before it (default 8) */
  concurrency?: number;
}

/** A bulk tool that changes something names what a call touches (../targets.ts), as every ToolDef must. */
export type BulkToolSpec<S extends z.ZodType, I> = BulkToolBase<S, I> &
  ({ risk: 'read'; targets?: ToolTargetsFn } | { risk: ChangeRisk; targets: ToolTargetsFn });

export function bulkTool<S extends z.ZodType, I>(spec: BulkToolSpec<S, I>): ToolDef<S> {
  const run = (args: z.infer<S>, ctx: ToolContext): Promise<ToolOutcome> =>
    guarded(async () => {
      const project = await projectOf(ctx);
      const items = await spec.items(args, project, ctx);
      const results = await runItems(
        items,
        async (item) => ({ ...(await spec.run(item, project, ctx)) }),
        (item) => spec.describe(item),
        spec.concurrency,
      );
      for (const r of results) {
        const error = r.status === 'success' ? spec.failure?.(r) : undefined;
        if (error) Object.assign(r, { status: 'error', error });
      }
      return batchOutcome(results, { results }, { noun: spec.noun });
    });
  const common = { name: spec.name, description: spec.description, ...(spec.brief ? { brief: spec.brief } : {}), schema: spec.schema, run };
  return spec.risk === 'read'
    ? defineTool({ ...common, risk: 'read', ...(spec.targets ? { targets: spec.targets } : {}) })
    : defineTool({ ...common, risk: spec.risk, targets: spec.targets });
}

/**
 * A tool over one list argument, `{"links":[…]}`: its schema (1..max items), the
 * list as the items, and its key as the noun. Spread it into a bulkTool spec.
 */
export function listArgs<K extends string, T extends z.ZodType>(key: K, item: T, max: number) {
  const shape = { [key]: z.array(item).min(1).max(max) } as Record<K, z.ZodArray<T>>;
  const schema = z.object(shape);
  return { noun: key, schema, items: (args: Record<K, z.infer<T>[]>): z.infer<T>[] => args[key] };
}

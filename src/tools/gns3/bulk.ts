/**
 * bulkTool(): the shape shared by the GNS3 tools that act on a list of items
 * (create nodes, create links, rename, power): open the project, turn the
 * arguments into items, run each item (its failure is its own result) and answer
 * `{"status":"success"|"partial"|"error","results":[…]}`. A failure before the
 * per-item stage (no project, controller down) is still that JSON.
 */
import type { z } from 'zod';
import type { Gns3Project } from '../../gns3/project.js';
import { defineTool, type ToolContext, type ToolDef, type ToolRisk } from '../types.js';
import type { ToolName } from '../../agent/modes.js';
import { guarded, json, projectOf, toolError } from './common.js';

export interface BulkToolSpec<S extends z.ZodType, I> {
  name: ToolName;
  description: string;
  risk: ToolRisk;
  schema: S;
  /** the items of one call, in the order they run (may ask the project, e.g. for free spots) */
  items(args: z.infer<S>, project: Gns3Project, ctx: ToolContext): I[] | Promise<I[]>;
  /** does one item; the fields it returns are that item's result (`status: "ok"` is added) */
  run(item: I, project: Gns3Project, ctx: ToolContext): Promise<object>;
  /** names a failed item in its result (`status: "error"` and `error` are added) */
  describe(item: I): Record<string, unknown>;
  /** items in flight at once; 1 when an item depends on the ones before it (default 8) */
  concurrency?: number;
}

export function bulkTool<S extends z.ZodType, I>(spec: BulkToolSpec<S, I>): ToolDef<S> {
  return defineTool({
    name: spec.name,
    description: spec.description,
    risk: spec.risk,
    schema: spec.schema,
    run: (args, ctx) =>
      guarded(async () => {
        const project = await projectOf(ctx);
        const items = await spec.items(args, project, ctx);
        const results = await runItems(items, async (item) => ({ ...(await spec.run(item, project, ctx)) }), spec.describe, spec.concurrency);
        return summary(results);
      }),
  });
}

export type ItemResult = Record<string, unknown> & { status: string };

/** Runs items with bounded parallelism; each item's failure is its own result. */
export async function runItems<T>(
  items: T[],
  worker: (item: T, index: number) => Promise<Record<string, unknown>>,
  describe: (item: T) => Record<string, unknown>,
  concurrency = 8,
): Promise<ItemResult[]> {
  const results: ItemResult[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      const item = items[i]!;
      try {
        results[i] = { ...(await worker(item, i)), status: 'ok' } as ItemResult;
      } catch (err) {
        results[i] = { ...describe(item), status: 'error', error: toolError(err) };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
  return results;
}

/** `{"status":"success"|"partial"|"error","results":[…]}` */
export function summary(results: ItemResult[], extra: Record<string, unknown> = {}): string {
  const failed = results.filter((r) => r.status === 'error').length;
  const status = failed === 0 ? 'success' : failed === results.length ? 'error' : 'partial';
  return json({ status, ...extra, results });
}

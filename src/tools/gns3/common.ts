/**
 * Shared plumbing of the GNS3 tools: reach the full project API from the
 * ProjectScope in the tool context, run bulk items with per-item status, and
 * turn any failure into a short message for the model (never a stack).
 */
import { Gns3Project } from '../../gns3/project.js';
import { Gns3ApiError } from '../../gns3/errors.js';
import type { ProjectScope } from '../../gns3/types.js';
import { failure, type ToolContext, type ToolOutcome } from '../types.js';
import { isTransientError, isUnsentError } from '../retry.js';
import type { ItemResult } from '../batch.js';

export function asGns3Project(scope: ProjectScope): Gns3Project {
  if (scope instanceof Gns3Project) return scope;
  throw new Error('this tool needs a project opened through the GNS3 client (openProjectScope), not a read-only scope');
}

export async function projectOf(ctx: ToolContext): Promise<Gns3Project> {
  return asGns3Project(await ctx.project());
}

/** One line for the model. API errors keep the server's own text. */
export function toolError(err: unknown): string {
  if (err instanceof Gns3ApiError) return `${err.serverMessage} (HTTP ${err.status})`;
  if (err instanceof Error) {
    if (err.name === 'AbortError') return 'aborted';
    return err.message.split('\n')[0] ?? 'error';
  }
  return String(err);
}

/** Runs items with bounded parallelism; each item's failure is its own result. */
export async function runItems<T>(
  items: T[],
  worker: (item: T, index: number) => Promise<Record<string, unknown>>,
  describe: (item: T) => Record<string, unknown>,
  concurrency = 8,
): Promise<ItemResult[]> {
  const results = new Array<ItemResult>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      const item = items[i]!;
      try {
        results[i] = { ...(await worker(item, i)), status: 'success' };
      } catch (err) {
        results[i] = {
          ...describe(item),
          status: 'error',
          error: toolError(err),
          ...(isTransientError(err) ? { transient: true, ...(isUnsentError(err) ? { unsent: true } : {}) } : {}),
        };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
  return results;
}

/** Wraps a whole tool body so a failure before the per-item stage is still an error outcome. */
export async function guarded(body: () => Promise<ToolOutcome>): Promise<ToolOutcome> {
  try {
    return await body();
  } catch (err) {
    const failed = failure(toolError(err), {}, { code: isUnsentError(err) ? 'unreachable' : 'failed', transient: isTransientError(err) });
    return isUnsentError(err) ? { ...failed, unsent: true } : failed;
  }
}

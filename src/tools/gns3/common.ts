/**
 * Shared plumbing of the GNS3 tools: reach the full project API from the
 * ProjectScope in the tool context and turn any failure into a short message
 * for the model (never a stack). Bulk items: ./bulk.ts.
 */
import { Gns3Project } from '../../gns3/project.js';
import { Gns3ApiError } from '../../gns3/errors.js';
import type { ProjectScope } from '../../gns3/types.js';
import type { ToolContext } from '../types.js';

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

export function json(value: unknown): string {
  return JSON.stringify(value);
}

/** Wraps a whole tool body so a failure before the per-item stage is still JSON. */
export async function guarded(body: () => Promise<string>): Promise<string> {
  try {
    return await body();
  } catch (err) {
    return json({ status: 'error', error: toolError(err) });
  }
}

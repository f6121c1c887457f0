import type { ToolErrorCode } from '../../core/events.js';

/** Thrown to a tree tool (agent, review_task, read_context_ref): becomes an error result for the model, nothing ran. */
export class DelegationRefused extends Error {
  /** `limit` when the tree's depth, its budget or a parent's quota refused it (the result's ToolErrorCode) */
  constructor(
    message: string,
    readonly code: Extract<ToolErrorCode, 'limit' | 'failed'> = 'failed',
  ) {
    super(message);
  }
}

/**
 * The outcome of a batch tool (GNS3 bulk items, device fan-outs): each item has
 * its own `status` in the one vocabulary (OutcomeStatus), and the call is
 * `success` when every item succeeded, `error` when every item failed, else `partial`.
 */
import type { OutcomeStatus, ToolOutcome } from './types.js';
import { count, noun } from '../core/plural.js';

export type ItemResult = Record<string, unknown> & { status: OutcomeStatus };

export function batchStatus(items: readonly { status: OutcomeStatus }[]): OutcomeStatus {
  if (items.every((i) => i.status === 'success')) return 'success';
  return items.every((i) => i.status === 'error') ? 'error' : 'partial';
}

/**
 * `data` plus a display line (`2 of 3 devices failed: R2: connection refused`).
 * `errorOf` names an item's failure (default: its `error`). When every item failed
 * transiently nothing happened, so the whole call may run again (./retry.ts decides).
 */
export function batchOutcome<T extends { status: OutcomeStatus; error?: unknown; transient?: unknown; unsent?: unknown }>(
  items: T[],
  data: Record<string, unknown>,
  opts: { noun: string; errorOf?: (item: T) => string | undefined },
): ToolOutcome {
  const status = batchStatus(items);
  const errorOf = opts.errorOf ?? ((i: T) => (typeof i.error === 'string' ? i.error : undefined));
  const bad = items.filter((i) => i.status !== 'success');
  const first = bad.map(errorOf).find((e) => e !== undefined);
  const n = items.length;
  // opts.noun is the plural ("devices"); count() makes "1 device ok"
  const one = opts.noun.replace(/s$/, '');
  const display =
    status === 'success'
      ? `${count(n, one, opts.noun)} ok`
      : `${status === 'error' ? (n === 1 ? '' : `all ${n} `) : `${bad.length} of ${n} `}${noun(n, one, opts.noun)} failed${first ? `: ${first}` : ''}`;
  const transient = status === 'error' && items.every((i) => i.transient === true);
  // and when none of them reached its target, running the call again repeats nothing
  const unsent = transient && items.every((i) => i.unsent === true);
  return {
    status,
    data: { ...data, ...(transient ? { transient } : {}) },
    display,
    ...(transient ? { transient } : {}),
    ...(unsent ? { unsent } : {}),
  };
}

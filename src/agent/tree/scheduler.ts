/**
 * Runs one batch of children: at most `max` at a time (a semaphore per batch),
 * results in input order whatever the finish order. An item whose `canStart` says
 * no when its turn comes never starts (a queued child stopped meanwhile).
 */
export async function runBatch<T, R>(
  items: readonly T[],
  max: number,
  canStart: (item: T, i: number) => boolean,
  run: (item: T, i: number) => Promise<R>,
  skipped: (item: T, i: number) => R,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      const item = items[i]!;
      out[i] = canStart(item, i) ? await run(item, i) : skipped(item, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(max, items.length)) }, worker));
  return out;
}

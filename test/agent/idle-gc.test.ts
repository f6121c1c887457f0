import { describe, expect, it } from 'vitest';
import { IdleCollector } from '../../src/agent/idle-gc.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('IdleCollector', () => {
  it('collects garbage once idle, and a new request (cancel) postpones it', async () => {
    const make = () => new WeakRef({ payload: new Array(10_000).fill('x') });
    const c = new IdleCollector(30);
    let ref = make();
    c.schedule();
    c.cancel(); // a request started before the delay ran out
    await sleep(80);
    // a scavenge may still have run on its own; only the scheduled full GC is asserted below
    ref = make();
    c.schedule();
    await sleep(120);
    expect(ref.deref()).toBeUndefined();
  });
});

/** Stop requests in real SQLite: a running request takes only those written since it started. */
import { describe, expect, it } from 'vitest';
import Sqlite from 'better-sqlite3';
import { TreeStore } from '../../../src/sessions/tree-store.js';
import { watchStopRequests } from '../../../src/agent/tree/stop-requests.js';

describe('stop requests', () => {
  it('an older request is left for its command to withdraw; a newer one is taken once', async () => {
    const trees = new TreeStore(new Sqlite(':memory:'));
    trees.requestStop('root', 'old-agent');
    const stale = (trees.db.prepare('SELECT requested_at FROM tree_stop_requests').get() as { requested_at: string }).requested_at;
    const later = new Date(Date.parse(stale) + 1).toISOString();
    expect(trees.takeStopRequests('root', later)).toEqual([]);
    expect(trees.stopRequested('root', 'old-agent')).toBe(true);
    expect(trees.takeStopRequests('root', stale)).toEqual(['old-agent']);
    expect(trees.takeStopRequests('root', stale)).toEqual([]);
    expect(trees.withdrawStopRequest('root', 'old-agent')).toBe(false);

    // the watcher: what was asked before it started is not taken, what comes after is
    trees.requestStop('root', 'before');
    await new Promise((r) => setTimeout(r, 5));
    const seen: string[] = [];
    let got!: () => void;
    const taken = new Promise<void>((r) => (got = r));
    const unwatch = watchStopRequests(
      trees,
      'root',
      (id) => {
        seen.push(id);
        got();
      },
      10,
    );
    trees.requestStop('root', 'after');
    await taken;
    unwatch();
    expect(seen).toEqual(['after']);
    expect(trees.withdrawStopRequest('root', 'before')).toBe(true);
  });
});

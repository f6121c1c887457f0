/** Cost: stats.cost_usd per request, the TUI status bar and `sessions list`, from the price table. */
import { describe, expect, it } from 'vitest';
import type { FakeLlm } from '../fakes/llm/server.js';
import { collect, ofType, session, captureStdout, useFakeLlm, tempDir, testSettings } from './helpers.js';
import { ResultBuilder } from '../../src/output/summary.js';
import { sessionsCommand } from '../../src/commands/sessions.js';
import { reduce } from '../../src/ui/state.js';
import { afterTurn, uiState } from '../ui/helpers/ui-state.js';
import { statusSegments } from '../../src/ui/components/StatusBar.js';
import { jsonResultSchema } from '../e2e/oneshot-schema.js';

const { tmp, startLlm } = useFakeLlm('gc-cost-');
let llm: FakeLlm | undefined;

describe('cost', () => {
  it('a priced model: stats.cost_usd in done and --json, the status bar and sessions list', async () => {
    llm = await startLlm([{ text: 'answer', usage: { prompt_tokens: 100_000, completion_tokens: 20_000 } }], { title: 'Priced' });
    // $1 per 1M input, $10 per 1M output: 100k in + 20k out = $0.30 plus the title call
    const settings = testSettings(llm.url, tmp.dir, { model: 'my-model', model_prices: { 'my-model': { input: 1, output: 10 } } });
    const s = await session(settings, []);
    const ev = await collect(s.send('how much?'));
    await s.close();
    const stats = ofType(ev, 'done')[0]!.stats;
    expect(stats.input_tokens).toBeGreaterThanOrEqual(100_000);
    const expected = Math.round(((stats.input_tokens * 1 + stats.output_tokens * 10) / 1e6) * 1e6) / 1e6;
    expect(stats.cost_usd).toBe(expected);
    expect(stats.cost_usd).toBeGreaterThanOrEqual(0.3);

    const b = new ResultBuilder('teaching_assistant');
    ev.forEach((e) => b.add(e));
    expect(jsonResultSchema.parse(JSON.parse(JSON.stringify(b.result()))).stats.cost_usd).toBe(expected);

    const ui = afterTurn('how much?', ev, uiState({ model: 'my-model', limits: s.limits }));
    expect(ui.costUsd).toBe(expected);
    expect(statusSegments(ui).map((x) => x.text)).toContain(`$${expected.toFixed(2)}`);

    const listed = JSON.parse(await captureStdout(() => sessionsCommand('list', [], { json: true }, settings))) as {
      sessions: { id: string; cost_usd: number | null }[];
    };
    expect(listed.sessions.find((r) => r.id === s.id)!.cost_usd).toBe(expected);
    const table = await captureStdout(() => sessionsCommand('list', [], {}, settings));
    expect(table).toMatch(/\bCOST\b/);
    expect(table).toContain(`$${expected.toFixed(2)}`);
  });

  it('an unknown model: cost_usd is null, the status bar shows no cost, sessions list shows —', async () => {
    const dir = tempDir('gc-cost-unknown-');
    llm = await startLlm([{ text: 'answer', usage: { prompt_tokens: 10, completion_tokens: 5 } }], { title: 'Unpriced' });
    const settings = testSettings(llm.url, dir.dir);
    const s = await session(settings, []);
    const ev = await collect(s.send('how much?'));
    await s.close();
    expect(ofType(ev, 'done')[0]!.stats.cost_usd).toBeNull();
    let ui = uiState({ model: 'fake-model', limits: s.limits });
    for (const e of ev) ui = reduce(ui, { type: 'agent', event: e, at: 1 });
    expect(ui.costUsd).toBeNull();
    expect(statusSegments(ui).some((x) => x.text.startsWith('$'))).toBe(false);
    const table = await captureStdout(() => sessionsCommand('list', [], {}, settings));
    expect(table.split('\n')[1]).toMatch(/\s—\s+Unpriced/);
    dir.cleanup();
  });

  it('sessions list prices each request at the model it ran with, not the configured one', async () => {
    const dir = tempDir('gc-cost-models-');
    const prices = { 'model-a': { input: 1, output: 0 }, 'model-b': { input: 10, output: 0 }, 'model-c': { input: 1000, output: 0 } };
    llm = await startLlm([{ text: 'a', usage: { prompt_tokens: 100_000, completion_tokens: 1 } }], { title: 'Two models' });
    const first = await session(testSettings(llm.url, dir.dir, { model: 'model-a', model_prices: prices }), []);
    const a = ofType(await collect(first.send('one')), 'done')[0]!.stats;
    await first.close();
    llm = await startLlm([{ text: 'b', usage: { prompt_tokens: 200_000, completion_tokens: 1 } }]);
    const second = await session(testSettings(llm.url, dir.dir, { model: 'model-b', model_prices: prices }), [], { sessionId: first.id });
    const b = ofType(await collect(second.send('two')), 'done')[0]!.stats;
    await second.close();
    // listed under a third configured model: the stored models decide
    const listed = JSON.parse(
      await captureStdout(() =>
        sessionsCommand('list', [], { json: true }, testSettings(llm!.url, dir.dir, { model: 'model-c', model_prices: prices })),
      ),
    ) as { sessions: { id: string; cost_usd: number | null }[] };
    expect(listed.sessions.find((r) => r.id === first.id)!.cost_usd).toBeCloseTo(a.cost_usd! + b.cost_usd!, 6);
    expect(a.cost_usd! + b.cost_usd!).toBeGreaterThanOrEqual(0.1 + 2);

    // a database from before the model was stored: that usage is priced at the configured model
    const { SessionStore } = await import('../../src/sessions/store.js');
    const store = await SessionStore.open(dir.dir);
    const old = store.create({ copilot_mode: 'teaching_assistant', agent_mode: 'flat' });
    store.recordRequest(old.id, { message_count: 2, llm_calls: 1, input_tokens: 1000, output_tokens: 0 });
    store.db.exec('DROP TABLE request_usage; UPDATE schema_version SET version = 3');
    store.close();
    const migrated = await SessionStore.open(dir.dir);
    expect(migrated.db.prepare('SELECT model, input_tokens FROM request_usage WHERE session_id = ?').all(old.id)).toEqual([
      { model: null, input_tokens: 1000 },
    ]);
    migrated.close();
    const relisted = JSON.parse(
      await captureStdout(() =>
        sessionsCommand('list', [], { json: true }, testSettings(llm!.url, dir.dir, { model: 'model-c', model_prices: prices })),
      ),
    ) as { sessions: { id: string; cost_usd: number | null }[] };
    expect(relisted.sessions.find((r) => r.id === old.id)!.cost_usd).toBe(1);
    dir.cleanup();
  });
});
